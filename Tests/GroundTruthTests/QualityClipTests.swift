import CCore
import Foundation
import GroundTruth
import Testing

/// The capture-quality scenarios: each really has its flaw, its truth says which
/// warnings it should raise, and it is as deterministic as the others.
@Suite struct QualityClipTests {
    static let quality = (GT_TOO_DARK.rawValue..<GT_SCENARIO_COUNT.rawValue).map { gt_scenario(rawValue: $0) }

    static func luma(_ s: ccore_roi_stats) -> Double { 0.299 * Double(s.r) + 0.587 * Double(s.g) + 0.114 * Double(s.b) }
    static func centre(_ r: ccore_rect) -> (x: Double, y: Double) {
        (Double(r.x + r.width / 2), Double(r.y + r.height / 2))
    }

    @Test func truthNamesTheExpectedWarnings() throws {
        for i in 0..<GT_SCENARIO_COUNT.rawValue {
            let scenario = gt_scenario(rawValue: i)
            let clip = try Clip(scenario, width: 32, height: 24, duration: 0.5)
            defer { clip.cleanUp() }
            let warnings = try #require(clip.truth["expectedWarnings"] as? [String])
            let name = String(cString: gt_scenario_name(scenario))
            #expect(warnings.isEmpty == (i < GT_TOO_DARK.rawValue), "\(name): \(warnings)")
            #expect((clip.truth["secondFace"] is NSNull) == (scenario != GT_TWO_FACES), "\(name)")
        }
    }

    @Test func tooDarkIsDarkAndTooBrightClips() throws {
        /// Per frame: the face box, then the three skin regions.
        func measured(_ scenario: gt_scenario) throws -> [[ccore_roi_stats]] {
            let clip = try Clip(scenario, seed: 2, duration: 0.5)
            defer { clip.cleanUp() }
            let faces = clip.faces, regions = clip.regions
            return try measureVideo(clip.video) { [faces[$0]] + regions[$0] }.1
        }
        let still = try measured(GT_STILL), dark = try measured(GT_TOO_DARK), bright = try measured(GT_TOO_BRIGHT)
        #expect(still.allSatisfy { Self.luma($0[0]) > 120 && $0.dropFirst().allSatisfy { $0.g < 230 } })
        #expect(dark.allSatisfy { Self.luma($0[0]) < 40 }, "face luma \(dark.map { Self.luma($0[0]) })")
        // Overexposed: red and green of the skin clip (the eyes and hair in the box do not).
        #expect(bright.allSatisfy { $0.dropFirst().allSatisfy { $0.r > 250 && $0.g > 245 } },
                "skin \(bright.map { $0.dropFirst().map { ($0.r, $0.g, $0.b) } })")
    }

    @Test func framingScenariosPlaceTheFace() throws {
        func faces(_ scenario: gt_scenario) throws -> (faces: [ccore_rect], clip: Clip) {
            let clip = try Clip(scenario, seed: 3, width: 64, height: 48, duration: 1)
            return (clip.faces, clip)
        }
        let (far, c1) = try faces(GT_TOO_FAR), (close, c2) = try faces(GT_TOO_CLOSE)
        let (off, c3) = try faces(GT_OFF_CENTER), (turned, c4) = try faces(GT_TURNED_AWAY)
        defer { [c1, c2, c3, c4].forEach { $0.cleanUp() } }
        #expect(!far.isEmpty && far.allSatisfy { $0.height < 0.18 })
        #expect(!close.isEmpty && close.allSatisfy { $0.height > 0.75 && $0.y >= 0 && $0.y + $0.height <= 1 })
        #expect(!off.isEmpty && off.allSatisfy { abs(Self.centre($0).x - 0.5) > 0.25 })
        // A frontal box is 0.81 as wide as tall (in pixels); turned ~55 deg, 0.55 of that.
        #expect(!turned.isEmpty && turned.allSatisfy { abs($0.width * 64 / ($0.height * 48) - 0.445) < 0.02 })
        for (regions, face) in zip(c4.regions, turned) {
            for r in regions { #expect(r.x >= face.x && r.x + r.width <= face.x + face.width) }
        }
    }

    @Test func twoFacesAndNoFace() throws {
        let two = try Clip(GT_TWO_FACES, seed: 4, width: 64, height: 48, duration: 1)
        let none = try Clip(GT_NO_FACE, seed: 4, width: 64, height: 48, duration: 1)
        defer { two.cleanUp(); none.cleanUp() }
        let second = (two.truth["secondFace"] as? [[NSNumber]])?.map(Clip.rect) ?? []
        #expect(second.count == two.faces.count && second.count == 30)
        for (main, other) in zip(two.faces, second) {
            #expect(abs(other.height / main.height - 0.55) < 0.03, "the second face is 55% the size")
            #expect(other.x > main.x + main.width, "beside the main face, not over it")
        }
        #expect(none.faces.isEmpty && none.regions.isEmpty)
        #expect(none.truth["pulsePresent"] as? Bool == false && none.int("writtenFrameCount") == 30)
        // Where the still clip has its face, the no-face clip shows plain backdrop: bright and grey.
        let still = try Clip(GT_STILL, seed: 4, width: 64, height: 48, duration: 1)
        defer { still.cleanUp() }
        let box = still.faces[0]
        let (_, withFace) = try measureVideo(still.video) { _ in [box] }
        let (_, backdrop) = try measureVideo(none.video) { _ in [box] }
        #expect(withFace[0][0].r - withFace[0][0].b > 30, "skin is reddish")
        #expect(abs(backdrop[0][0].r - backdrop[0][0].b) < 20 && backdrop[0][0].g > 170, "backdrop is light grey")
    }

    @Test func unevenLightDarkensOneCheek() throws {
        let clip = try Clip(GT_UNEVEN, seed: 5, duration: 0.5)
        defer { clip.cleanUp() }
        let regions = clip.regions
        let (_, stats) = try measureVideo(clip.video) { regions[$0] }
        for s in stats {
            let a = Self.luma(s[1]), b = Self.luma(s[2])
            #expect(max(a, b) / min(a, b) > 1.8, "cheeks \(a) and \(b)")
        }
    }

    /// 100 Hz light at 30 fps: the whole frame's luma swings +-8% at 10 Hz.
    @Test func flickerIsTenHertz() throws {
        let clip = try Clip(GT_FLICKER, seed: 6, width: 64, height: 48, duration: 3)
        defer { clip.cleanUp() }
        let (_, stats) = try measureVideo(clip.video) { _ in [ccore_rect(x: 0, y: 0, width: 1, height: 1)] }
        let y = stats.map { Self.luma($0[0]) }
        let times = y.indices.map { Double($0) / 30 }
        let freqs = stride(from: 1.0, through: 14.5, by: 0.1).map { $0 }
        let power = spectrum(y, times: times, frequencies: freqs)
        let peak = freqs[power.indices.max { power[$0] < power[$1] } ?? 0]
        #expect(abs(peak - 10) < 0.15, "peak at \(peak) Hz")
        let mean = y.reduce(0, +) / Double(y.count)
        let rms = (y.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(y.count)).squareRoot()
        #expect(abs(rms / mean - 0.08 / 2.0.squareRoot()) < 0.012, "relative RMS \(rms / mean)")
    }

    /// Camera shake moves the backdrop with the face: the top rows (backdrop only)
    /// are shifted by the face box's own displacement, to the pixel.
    @Test func cameraShakeMovesTheWholePicture() throws {
        let w = 160
        let clip = try Clip(GT_CAMERA_SHAKE, seed: 7, width: UInt32(w), height: 120, duration: 2)
        defer { clip.cleanUp() }
        let (_, profiles) = try readVideo(clip.video) { image, _ in
            (0..<w).map { x in (0..<10).reduce(0.0) { $0 + Double(image.plane0[$1 * Int(image.stride0) + x]) } / 10 }
        }
        let faces = clip.faces
        var moved = 0
        for k in stride(from: 3, to: profiles.count, by: 3) {
            let dx = (Self.centre(faces[k]).x - Self.centre(faces[0]).x) * Double(w)
            let best = (-12...12).min { a, b in Self.mismatch(profiles[0], profiles[k], a) < Self.mismatch(profiles[0], profiles[k], b) }
            #expect(abs(Double(best ?? 99) - dx) <= 1.2, "frame \(k): backdrop \(best ?? 99) px, face \(dx) px")
            if abs(dx) >= 2 { moved += 1 }
        }
        #expect(moved >= 5, "the picture jitters by several pixels")
    }

    static func mismatch(_ a: [Double], _ b: [Double], _ d: Int) -> Double {
        var s = 0.0
        for x in 14..<(a.count - 14) { s += abs(b[x] - a[x - d]) }
        return s
    }

    /// Head-moving travels more than a third of a face height per second; motion does not.
    @Test func headMovingIsLargeAndContinuous() throws {
        func speed(_ scenario: gt_scenario) throws -> Double {
            let clip = try Clip(scenario, seed: 8, width: 32, height: 24, duration: 6)
            defer { clip.cleanUp() }
            let f = clip.faces
            let path = zip(f.dropFirst(), f).reduce(0.0) { sum, p in
                let a = Self.centre(p.0), b = Self.centre(p.1)
                return sum + (((a.x - b.x) * 32) * ((a.x - b.x) * 32) + ((a.y - b.y) * 24) * ((a.y - b.y) * 24)).squareRoot()
            }
            return path / (Double(f[0].height) * 24) / 6
        }
        let moving = try speed(GT_HEAD_MOVING), motion = try speed(GT_MOTION)
        #expect(moving > 0.6, "\(moving) face heights/s")
        #expect(motion < 0.3, "\(motion) face heights/s")
    }

    /// The blue card covers the subject's left cheek (image right) from 20% to
    /// 80% of the clip, and the inner part of the other.
    @Test func occluderCoversACheekMidClip() throws {
        let clip = try Clip(GT_OCCLUDED, seed: 9, duration: 5)
        defer { clip.cleanUp() }
        let regions = clip.regions
        let (_, stats) = try measureVideo(clip.video) { regions[$0] }
        for (i, s) in stats.enumerated() {
            let t = Double(i) / 30, covered = t >= 1.0 && t < 4.0
            #expect((s[1].b > s[1].r + 40) == covered, "left cheek at \(t) s: \(s[1].r), \(s[1].g), \(s[1].b)")
            #expect(s[0].r > s[0].b, "the forehead stays uncovered")
            if covered { #expect(s[2].b > s[2].r - 30, "half the right cheek is covered") }
        }
    }

    @Test(arguments: [GT_CAMERA_SHAKE, GT_TWO_FACES, GT_OCCLUDED, GT_UNEVEN])
    func sameSeedSameBytes(scenario: gt_scenario) throws {
        let a = try Clip(scenario, seed: 21, width: 96, height: 72, duration: 2, threads: 1)
        let b = try Clip(scenario, seed: 21, width: 96, height: 72, duration: 2, threads: 3)
        let c = try Clip(scenario, seed: 22, width: 96, height: 72, duration: 2, threads: 1)
        defer { a.cleanUp(); b.cleanUp(); c.cleanUp() }
        #expect(try Data(contentsOf: a.video) == Data(contentsOf: b.video))
        #expect(try Data(contentsOf: a.truthURL) == Data(contentsOf: b.truthURL))
        #expect(try Data(contentsOf: a.video) != Data(contentsOf: c.video))
    }
}
