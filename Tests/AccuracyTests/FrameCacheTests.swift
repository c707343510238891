@testable import AccuracyKit
import Circadify
import Foundation
import Testing

/// The measured frames kept between runs (`--cache`): what is re-scored must be what was measured.
struct FrameCacheTests {
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("frame-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func framesComeBackAsTheyWereSaved() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = (0..<3).map { (i: Int) -> SignalFrame in
            let regions = [RegionColor(red: 120.5 + Double(i), green: 90.25, blue: 70, skinFraction: 0.9),
                           RegionColor(red: 118, green: 88, blue: 69.5, skinFraction: 0.75)]
            let band: Double? = i == 2 ? nil : 87.5 + Double(i)
            return SignalFrame(time: Double(i) / 30, regions: regions, faceCenterY: i == 1 ? nil : 0.45, meanLuma: 101,
                               bandLuma: band, placement: UInt32(i))
        }
        let url = FrameCache.framesURL(dir, clip: "still-1v", source: .tracker)
        #expect(url.lastPathComponent == "still-1v.tracker.frames.json")
        try FrameCache.save(frames, to: url)
        let back = try FrameCache.load(url)
        #expect(back.count == 3)
        for (a, b) in zip(frames, back) {
            #expect(a.time == b.time && a.meanLuma == b.meanLuma && a.faceCenterY == b.faceCenterY)
            #expect(a.placement == b.placement && a.bandLuma == b.bandLuma)
            #expect(a.regions.map(\.red) == b.regions.map(\.red) && a.regions.map(\.green) == b.regions.map(\.green))
            #expect(a.regions.map(\.blue) == b.regions.map(\.blue))
            #expect(a.regions.map(\.skinFraction) == b.regions.map(\.skinFraction))
        }
    }

    @Test func filesFromBeforeThePlacementWasKeptLoadWithPlacementZero() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("old.frames.json")
        // [time, meanLuma, faceCenterY, then R, G, B, skin per region]: no placement.
        try Data("[[0.5, 100, 0.4, 120, 90, 70, 0.9]]".utf8).write(to: url)
        let frames = try FrameCache.load(url)
        #expect(frames.count == 1 && frames[0].placement == 0 && frames[0].regions.count == 1)
        #expect(frames[0].regions[0].green == 90)
        #expect(frames[0].bandLuma == nil)
    }

    @Test func filesFromBeforeTheBandLumaWasKeptLoadWithoutIt() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("old.frames.json")
        // [time, meanLuma, faceCenterY, placement, then R, G, B, skin per region].
        try Data("[[0.5, 100, 0.4, 3, 120, 90, 70, 0.9]]".utf8).write(to: url)
        let frames = try FrameCache.load(url)
        #expect(frames.count == 1 && frames[0].placement == 3 && frames[0].bandLuma == nil)
        #expect(frames[0].regions.count == 1 && frames[0].regions[0].blue == 70)
    }

    @Test func aRowOfTheWrongLengthIsACorruptFile() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bad.frames.json")
        try Data("[[0.5, 100, 0.4, 0, 120, 90]]".utf8).write(to: url)
        #expect(throws: (any Error).self) { try FrameCache.load(url) }
        try Data("[[0.5, 100]]".utf8).write(to: url)
        #expect(throws: AccuracyError.self) { try FrameCache.load(url) }
        try Data("[[0.5, 100, 0.4, 1e300, 120, 90, 70, 0.9]]".utf8).write(to: url)
        #expect(throws: AccuracyError.self) { try FrameCache.load(url) }
    }
}
