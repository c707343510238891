import Circadify
import Foundation

/// The measured frames of a clip, kept on disk so the signal pipeline can be re-scored
/// without rendering and tracking the clip again (`--cache DIR`). One JSON file per clip
/// and region source, beside a copy of its truth; a frame is
/// [time, meanLuma, faceCenterY or -1, placement, bandLuma or -1, then R, G, B, skinFraction
/// per region] (files written before the placement or the band luma was kept lack them: they
/// load with placement 0 and no band luma).
package enum FrameCache {
    package static func framesURL(_ folder: URL, clip: String, source: ClipEvaluator.RegionSource) -> URL {
        folder.appendingPathComponent("\(clip).\(source.rawValue).frames.json")
    }

    package static func truthURL(_ folder: URL, clip: String) -> URL { folder.appendingPathComponent("\(clip).json") }

    package static func load(_ url: URL) throws -> [SignalFrame] {
        let rows = try JSONDecoder().decode([[Double]].self, from: Data(contentsOf: url))
        return try rows.map { row in
            // 3, 4 or 5 numbers lead, then 4 per region: the count's remainder tells which.
            guard let first = [3, 4, 5].first(where: { row.count >= $0 && (row.count - $0) % 4 == 0 }) else {
                throw AccuracyError("\(url.path): a frame of \(row.count) numbers (3, 4 or 5, then 4 per region)")
            }
            // The placement is a count: a cache that says otherwise is not one this tool wrote.
            if first >= 4, !(row[3] >= 0 && row[3] <= Double(UInt32.max)) {
                throw AccuracyError("\(url.path): a frame's placement is \(row[3])")
            }
            let regions = stride(from: first, to: row.count, by: 4).map {
                RegionColor(red: row[$0], green: row[$0 + 1], blue: row[$0 + 2], skinFraction: row[$0 + 3])
            }
            return SignalFrame(time: row[0], regions: regions, faceCenterY: row[2] < 0 ? nil : row[2], meanLuma: row[1],
                               bandLuma: first == 5 && row[4] >= 0 ? row[4] : nil,
                               placement: first >= 4 ? UInt32(row[3]) : 0)
        }
    }

    package static func save(_ frames: [SignalFrame], to url: URL) throws {
        let rows = frames.map { f in
            [f.time, f.meanLuma, f.faceCenterY ?? -1, Double(f.placement), f.bandLuma ?? -1]
                + f.regions.flatMap { [$0.red, $0.green, $0.blue, $0.skinFraction] }
        }
        try JSONEncoder().encode(rows).write(to: url, options: .atomic)
    }
}
