import Foundation
import GroundTruthKit

/// A generated face clip (Tools/groundtruth) for replay cameras, in a fresh
/// folder; `cleanUp()` removes it.
struct ReplayClip: Sendable {
    var folder: URL
    var path: String
    var truth: GroundTruthFile

    /// Renders on a thread of its own: seconds of C rendering must not hold one of
    /// the concurrency pool's threads.
    static func render(_ scenario: String, seconds: Float, width: UInt32 = 320, height: UInt32 = 240,
                       heartRate: Float = 0, seed: UInt32 = 1) async throws -> ReplayClip {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try ReplayClip(scenario, seconds: seconds, width: width, height: height, heartRate: heartRate,
                                   seed: seed)
                })
            }.start()
        }
    }

    private init(_ scenario: String, seconds: Float, width: UInt32, height: UInt32, heartRate: Float,
                 seed: UInt32) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-sdk-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = try ClipRenderer.render(scenario: scenario, seed: seed, into: folder, name: scenario) { options in
            options.width = width
            options.height = height
            options.duration_s = seconds
            options.heart_rate_bpm = heartRate
        }
        path = clip.video.path
        truth = try GroundTruthFile.load(clip.truth)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: folder) }
}

/// File descriptors this process has open (to catch leaks), all or those open on `path`.
func openDescriptorCount(to path: String? = nil) -> Int {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    guard let path else { return fds.count }
    return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
}
