import Foundation
import GroundTruth

/// Renders ground-truth clips from Swift: the video in the scenario's own
/// format (.y4m or .mjpeg) and its truth JSON beside it.
public enum ClipRenderer {
    public struct RenderError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Every scenario's name, in the generator's order.
    public static var scenarioNames: [String] {
        (0..<GT_SCENARIO_COUNT.rawValue).map { String(cString: gt_scenario_name(gt_scenario(rawValue: $0))) }
    }

    /// The scenarios that test the pulse pipeline (still ... board); the rest
    /// (too-dark ... no-face) break a capture condition for the quality monitor.
    public static var accuracyScenarioNames: [String] { Array(scenarioNames.prefix(Int(GT_TOO_DARK.rawValue))) }

    /// Renders `scenario` into `folder` as `name`.y4m/.mjpeg + `name`.json.
    /// `configure` may adjust the generator's options (size, duration, heart rate, ...).
    public static func render(scenario: String, seed: UInt32, into folder: URL, name: String,
                              configure: (inout gt_options) -> Void = { _ in }) throws -> (video: URL, truth: URL) {
        var options = gt_options()
        gt_options_init(&options)
        var parsed = gt_scenario(rawValue: 0)
        guard gt_scenario_from_name(scenario, &parsed) == 0 else {
            throw RenderError(description: "unknown scenario '\(scenario)'; known: \(scenarioNames.joined(separator: ", "))")
        }
        options.scenario = parsed
        options.seed = seed
        configure(&options)
        var message = [CChar](repeating: 0, count: 512)
        func text() -> String { String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        var clip: OpaquePointer?
        guard gt_clip_create(&options, &clip, &message, message.count) == 0, let clip else {
            throw RenderError(description: "cannot render \(name): \(text())")
        }
        defer { gt_clip_destroy(clip) }
        var info = gt_clip_info()
        gt_clip_get_info(clip, &info)
        let video = folder.appendingPathComponent(name + (info.format == GT_FORMAT_MJPEG ? ".mjpeg" : ".y4m"))
        let truth = folder.appendingPathComponent(name + ".json")
        guard gt_clip_write_video(clip, video.path, &message, message.count) == 0,
              gt_clip_write_truth(clip, truth.path, &message, message.count) == 0 else {
            throw RenderError(description: "cannot write \(name): \(text())")
        }
        return (video, truth)
    }
}
