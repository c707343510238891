@testable import Circadify
import Foundation
import GroundTruthKit
import Testing

/// A lamp's mains ripple read by a rolling shutter lays bands across the picture; on a dark,
/// low-contrast face they hide it from the cascade, and the finder divides them out.
@Suite(.serialized) struct FlickerBandsTests {
    /// Renders `scenario` of the validation person 1008 (Fitzpatrick VI) at 320x240 and
    /// returns the luma of frame `index` as a thumbnail (a 320x240 frame is its own thumbnail).
    static func frame(_ scenario: String, index: Int = 30, seed: UInt32 = 1008) throws -> LumaThumbnail {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-bands-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try ClipRenderer.render(scenario: scenario, seed: seed, into: folder, name: scenario) {
            $0.width = 320; $0.height = 240; $0.duration_s = Float(index + 2) / 30; $0.variety = 1
        }
        // Y4M: a header line, then per frame "FRAME\n" and the Y, Cb and Cr planes (4:2:0).
        let bytes = [UInt8](try Data(contentsOf: clip.video))
        let header = try #require(bytes.firstIndex(of: 0x0A))
        let frameBytes = 6 + 320 * 240 * 3 / 2
        let start = header + 1 + index * frameBytes + 6
        try #require(bytes.count >= start + 320 * 240)
        return LumaThumbnail(width: 320, height: 240, sequence: UInt64(index),
                             pixels: Array(bytes[start..<(start + 320 * 240)]))
    }

    static func detector() throws -> FaceDetector { try FaceDetector(maxWidth: 320, maxHeight: 240) }

    static func faces(_ thumbnail: LumaThumbnail) throws -> [DetectedFace] {
        try detector().detect(luma: thumbnail.pixels, width: thumbnail.width, height: thumbnail.height)
    }

    @Test func aDarkFaceHiddenByBandsIsFoundWithThemDividedOut() throws {
        let banded = try Self.frame("mains-flicker")
        let still = try Self.frame("still")
        // The case this is for: the cascade finds the face without bands and misses it with them.
        #expect(try Self.faces(still).count == 1)
        #expect(try Self.faces(banded).isEmpty, "the bands no longer hide this face: the test shows nothing")

        let found = FlickerBands(in: banded)
        let bands = try #require(found, "no bands found")
        // The bands as the two renders show them: each row's median ratio, banded to still.
        let truth = (0..<240).map { y -> Double in
            let ratios = (0..<320).map { x -> Double in
                log(Double(max(banded.pixels[y * 320 + x], 1))) - log(Double(max(still.pixels[y * 320 + x], 1)))
            }
            return SignalMath.median(ratios)
        }
        let centred = truth.map { $0 - SignalMath.mean(truth) }
        let worst = (0..<240).map { abs(bands.logGain(atRow: $0) - centred[$0]) }.max() ?? 1
        let truthAmplitude = (centred.map(abs).max() ?? 0)
        #expect(truthAmplitude > 0.03, "bands of \(truthAmplitude)")
        #expect(worst < 0.25 * truthAmplitude, "fitted bands off by \(worst) against \(truthAmplitude)")

        let finder = FaceFinder(detector: try Self.detector())
        let result = try finder.find(in: banded, tracked: nil, at: 0)
        #expect(result.found.count == 1)
        #expect(finder.debandedSearches == 1)
        // Where the plain search finds the face, nothing more is done.
        let plain = FaceFinder(detector: try Self.detector())
        #expect(try plain.find(in: still, tracked: nil, at: 0).found.count == 1)
        #expect(plain.debandedSearches == 0)
    }

    /// Pictures without bands have none: the rendered face, and the photographs the detector
    /// is tested on (faces, hair, a shoulder and a mug make rows change, but not every column alike).
    @Test(arguments: ["astronaut-320x240.jpg", "coffee.jpg", "two-faces.jpg", "astronaut.jpg"])
    func photographsHaveNoBands(name: String) throws {
        let luma = try FaceDetectorTests.image(name)
        let thumbnail = LumaThumbnail(width: luma.width, height: luma.height, sequence: 0, pixels: luma.pixels)
        #expect(FlickerBands(in: thumbnail) == nil)
    }

    @Test(arguments: ["still", "lighting", "autogain"])
    func renderedFacesWithoutALampRippleHaveNoBands(scenario: String) throws {
        #expect(FlickerBands(in: try Self.frame(scenario, seed: 1008)) == nil)
        #expect(FlickerBands(in: try Self.frame(scenario, seed: 1002)) == nil)
    }

    /// Bands laid on a busy photograph at the periods a rolling shutter gives (2-8 bands a
    /// frame) are found at their period and mostly divided out. Their amplitude reads up to
    /// about a third low here: clipped and flat pixels show no band and pull each row's median
    /// towards no change.
    @Test(arguments: [(30.0, 0.06), (48.0, 0.06), (68.0, 0.08), (110.0, 0.08)])
    func bandsOnAPhotographAreMeasuredAndRemoved(period: Double, amplitude: Double) throws {
        let luma = try FaceDetectorTests.image("astronaut-320x240.jpg")
        let phase = 0.7
        func gain(_ y: Int) -> Double { amplitude * sin(2 * Double.pi * Double(y) / period + phase) }
        var pixels = luma.pixels
        for y in 0..<luma.height {
            for x in 0..<luma.width {
                pixels[y * luma.width + x] = UInt8(min(255, (Double(pixels[y * luma.width + x]) * exp(gain(y))).rounded()))
            }
        }
        let banded = LumaThumbnail(width: luma.width, height: luma.height, sequence: 0, pixels: pixels)
        let found = FlickerBands(in: banded)
        let bands = try #require(found, "no bands found")
        #expect(abs(bands.period - period) <= max(2, 0.05 * period), "period \(bands.period)")
        #expect(abs(bands.amplitude - amplitude) <= 0.35 * amplitude, "amplitude \(bands.amplitude)")
        // What is left of the bands: each row's median log ratio to the photograph, before and after.
        func worstRowGain(_ picture: [UInt8]) -> Double {
            (0..<luma.height).map { y -> Double in
                abs(SignalMath.median((0..<luma.width).compactMap { x -> Double? in
                    let a = Double(picture[y * luma.width + x]), b = Double(luma.pixels[y * luma.width + x])
                    return a >= 8 && b >= 8 && a <= 250 ? log(a / b) : nil
                }))
            }.max() ?? 1
        }
        let before = worstRowGain(pixels), after = worstRowGain(bands.removed(from: banded).pixels)
        #expect(after < 0.4 * before, "rows off by up to \(after) after, \(before) before")
    }

    /// The in-place median the bands' rows use gives what the sorting one gives: odd and even
    /// counts, ties, one value, none.
    @Test func theInPlaceMedianIsTheMedian() {
        var generator = SystemRandomNumberGenerator()
        var cases: [[Double]] = [[], [3], [2, 1], [5, 5, 5, 1], [1, 2, 2, 2, 3, 9]]
        for count in [7, 8, 159, 160] {
            cases.append((0..<count).map { _ in Double(Int.random(in: -20...20, using: &generator)) / 4 })
        }
        for values in cases {
            var copy = values
            let inPlace = copy.withUnsafeMutableBufferPointer { SignalMath.median(inPlace: $0) }
            #expect(inPlace == SignalMath.median(values), "\(values)")
        }
    }

    /// Too small a picture, or a flat one, has no bands to find (and nothing crashes).
    @Test func tinyAndFlatPicturesHaveNone() {
        #expect(FlickerBands(in: LumaThumbnail(width: 4, height: 4, sequence: 0, pixels: [UInt8](repeating: 90, count: 16))) == nil)
        #expect(FlickerBands(in: LumaThumbnail(width: 64, height: 48, sequence: 0, pixels: [UInt8](repeating: 90, count: 64 * 48))) == nil)
        #expect(FlickerBands(in: LumaThumbnail(width: 64, height: 48, sequence: 0, pixels: [])) == nil)
    }
}
