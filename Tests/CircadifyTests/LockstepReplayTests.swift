@testable import Circadify
import CCore
import CCoreTestSupport
import Foundation
import Testing

/// Frame-exact replay of a file (the core's file source in lockstep: the scan
/// driver's and the accuracy benchmark's path) and the file measurement on top
/// of it: every frame at its own regions, bad input as a clear error.
@Suite struct LockstepReplayTests {
    /// Flat frames whose luma steps by one level per frame.
    static func clip(frames: Int) -> [UInt8] {
        Y4M.file(width: 64, height: 48, frames: (0..<frames).map { i in
            Y4M.flatFrame420(width: 64, height: 48, y: UInt8(90 + i), cb: 110, cr: 150)
        })
    }

    @Test func everyFrameIsMeasuredAtItsOwnRegions() async throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.clip(frames: 12))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: .lockstepReplay())
        #expect(source.format.width == 64 && source.format.height == 48 && source.format.framesPerSecond == 30)
        // One region on odd frames, two on even ones: the processor must follow frame by frame.
        func regions(_ i: Int) -> RegionSet {
            RegionSet(rects: (0..<(i % 2 == 0 ? 2 : 1)).map { _ in NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5) },
                      skin: .everything)
        }
        try await source.setRegions(regions(0))
        var seen = [FrameSample]()
        for try await sample in try await source.samples() {
            #expect(sample.regions.count == regions(seen.count).rects.count, "frame \(seen.count)")
            seen.append(sample)
            try await source.setRegions(regions(seen.count))
        }
        #expect(seen.map(\.sequence) == (0..<12).map(UInt64.init))
        #expect(abs((seen[1].timestampNanoseconds - seen[0].timestampNanoseconds) - 33_333_333) <= 1)
        #expect(abs(seen[7].meanLuma - 97) < 0.01)
    }

    /// Thumbnails every `thumbnailEvery`-th frame, at the frame's aspect ratio and never
    /// larger than the frame, each naming its frame; none when switched off.
    @Test func thumbnailsComeWithTheirFrames() async throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.clip(frames: 12))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: .lockstepReplay(thumbnailSide: 32, thumbnailEvery: 4))
        #expect(source.thumbnailSize == (32, 24))
        var seen: [(UInt64, LumaThumbnail)] = []
        for try await sample in try await source.samples() {
            if let t = await source.takeThumbnail() { seen.append((sample.sequence, t)) }
        }
        #expect(seen.map(\.0) == [0, 4, 8])
        for (sequence, t) in seen {
            #expect(t.sequence == sequence && t.width == 32 && t.height == 24 && t.pixels.count == 32 * 24)
            #expect(t.pixels.allSatisfy { $0 == UInt8(90 + sequence) }, "the frame's own luma")
        }
        let large = try FrameSource(.file(file.path), configuration: .lockstepReplay()) // 320: clamped to the 64x48 frame
        var iterator = try await large.samples().makeAsyncIterator()
        _ = try await iterator.next()
        let t = try #require(await large.takeThumbnail())
        #expect(t.width == 64 && t.height == 48)
        await large.stop()
        let none = try FrameSource(.file(file.path), configuration: .lockstepReplay(thumbnailSide: 0))
        var noneIterator = try await none.samples().makeAsyncIterator()
        _ = try await noneIterator.next()
        #expect(await none.takeThumbnail() == nil)
        await none.stop()
    }

    /// A portrait clip's thumbnail is portrait too (a 320-wide one would not fit the detector).
    @Test func portraitThumbnailFitsTheDetectorsSquare() async throws {
        let file = try TemporaryFile(named: "portrait.y4m", contents: Y4M.file(width: 480, height: 640, frames: [
            Y4M.flatFrame420(width: 480, height: 640, y: 100, cb: 110, cr: 150)]))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: .lockstepReplay())
        #expect(source.thumbnailSize == (240, 320))
    }

    @Test func badInputIsAClearError() async throws {
        #expect(throws: CoreError.self) { try FrameSource(.file("/nonexistent/clip.y4m"), configuration: .lockstepReplay()) }

        let cut = try TemporaryFile(named: "cut.y4m", contents: Array(Self.clip(frames: 5).dropLast(9)))
        defer { cut.cleanUp() }
        let source = try FrameSource(.file(cut.path), configuration: .lockstepReplay())
        var count = 0
        do {
            for try await _ in try await source.samples() { count += 1 }
            Issue.record("a truncated frame must throw")
        } catch let error as CoreError {
            #expect(error.code == CoreError.truncated)
            #expect(error.message.contains("frame 4"), "\(error.message)")
        }
        #expect(count == 4)

        let whole = try TemporaryFile(named: "clip.y4m", contents: Self.clip(frames: 2))
        defer { whole.cleanUp() }
        let nine = RegionSet(rects: (0..<9).map { _ in NormalizedRect(x: 0, y: 0, width: 1, height: 1) })
        await #expect(throws: CoreError.self) {
            try await FrameSource(.file(whole.path), configuration: .lockstepReplay()).setRegions(nine)
        }
    }

    @Test func measurementUsesGivenTimestampsAndRefusesMissingOnes() async throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.clip(frames: 6))
        defer { file.cleanUp() }
        let regions = FrameRegions(rects: [NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)], faceCenterY: 0.4)
        let times = [0, 0.033, 0.1, 0.133, 0.166, 0.2]
        let frames = try await FileMeasurement.frames(path: file.path, timestamps: times) { _ in regions }
        #expect(frames.map(\.time) == times)
        #expect(frames.allSatisfy { $0.faceCenterY == 0.4 && $0.regions.count == 1 })
        do {
            _ = try await FileMeasurement.frames(path: file.path, timestamps: Array(times.prefix(4))) { _ in regions }
            Issue.record("frames without timestamps must not be given made-up times")
        } catch {
            #expect(error.message.contains("frame 4 has no timestamp"), "\(error.message)")
        }
    }

    @Test func skinModelLearnsTheFacesOwnTone() {
        // A dark skin tone under dim light: the classic box's luma floor (40) would drop it.
        let dark = RegionColor(red: 62, green: 38, blue: 30, skinFraction: 0.9)
        let frames = (0..<20).map { SignalFrame(time: Double($0) / 30, regions: [dark, dark], meanLuma: 40) }
        let model = SkinToneModel()
        #expect(model.bounds(from: Array(frames.prefix(5))) == nil, "too few frames to learn from")
        let bounds = model.bounds(from: frames)
        let y = 0.299 * 62 + 0.587 * 38 + 0.114 * 30
        #expect(bounds.map { $0.y.contains(UInt8(y)) && $0.y.lowerBound < 40 } == true, "\(String(describing: bounds))")
        #expect(bounds.map { $0.cb.contains(121) && $0.cr.contains(142) } == true, "\(String(describing: bounds))")
    }

    @Test func theSkinMaskIsKeptUntilTheSkinsColourClearlyMoves() throws {
        let model = SkinToneModel()
        func learnt(_ c: RegionColor) throws -> SkinBounds {
            try #require(model.bounds(from: (0..<20).map { SignalFrame(time: Double($0) / 30, regions: [c], meanLuma: 90) }))
        }
        let skin = try learnt(RegionColor(red: 150, green: 105, blue: 85, skinFraction: 0.9))
        #expect(model.replaces(SkinToneModel.initial, with: skin), "the wide starting box gives way at once")
        // The median wandering by a level or two with the pulse and the noise: keep the mask.
        let wander = try learnt(RegionColor(red: 151.5, green: 104.5, blue: 85.5, skinFraction: 0.9))
        #expect(wander != skin && !model.replaces(skin, with: wander), "\(wander) against \(skin)")
        // The light turning warmer (Cr up by about 8 levels), or dimming by a third: relearn.
        let warmer = try learnt(RegionColor(red: 166, green: 103, blue: 80, skinFraction: 0.9))
        #expect(model.replaces(skin, with: warmer), "\(warmer) against \(skin)")
        let dimmer = try learnt(RegionColor(red: 100, green: 70, blue: 57, skinFraction: 0.9))
        #expect(model.replaces(skin, with: dimmer), "\(dimmer) against \(skin)")
    }
}
