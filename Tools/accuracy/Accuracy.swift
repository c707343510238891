import ArgumentParser
import Circadify
import Foundation
import GroundTruthKit

/// `circadify-accuracy`: the whole pipeline (file reader → per-frame processor →
/// signal pipeline) on videos whose truth is known, scored per scenario.
@main
struct Accuracy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "circadify-accuracy",
        abstract: "Score heart rate, HRV, breathing and confidence on ground-truth videos.",
        discussion: """
            By default it renders the synthetic set with the ground-truth generator (every pulse \
            scenario, still to hard, --seeds seeds each; the capture-quality ones only when named) one clip at a time into a temporary folder, scores it and deletes it. \
            With --dataset it scores every VIDEO + VIDEO.json pair in a folder instead (any recording \
            with a truth file of the generator's format). Regions come from the face detector and \
            tracker, as in `circadify scan` (--regions tracker, the default), or from the truth file \
            (--regions truth: the signal pipeline alone, with perfect regions). Prints a markdown \
            table per scenario and a confidence summary.
            """)

    @Option(help: "Seeds per scenario.") var seeds = 5
    @Option(help: "Scenarios, comma-separated (default: still ... hard; see circadify-groundtruth --list).")
    var scenarios: String?
    @Option(help: "Clip length, seconds.") var duration = 30.0
    @Option(help: "Frame size, WIDTHxHEIGHT.") var size = "640x480"
    @Option(help: "Score the clips in this folder instead of rendering the synthetic set.") var dataset: String?
    @Option(help: "Write every clip's score as JSON here.") var jsonOut: String?
    @Flag(help: "Print one line per clip as it is scored.") var verbose = false
    @Option(help: "Where the measured regions come from: tracker (the face detector, as a scan) or truth.")
    var regions = ClipEvaluator.RegionSource.tracker

    func validate() throws {
        if seeds < 1 { throw ValidationError("--seeds must be at least 1") }
        if duration < 10 { throw ValidationError("--duration must be at least 10 seconds") }
        if parsedSize == nil { throw ValidationError("--size must look like 640x480 (even numbers)") }
        let unknown = (scenarios?.split(separator: ",").map(String.init) ?? [])
            .filter { !ClipRenderer.scenarioNames.contains($0) }
        if !unknown.isEmpty {
            throw ValidationError("unknown scenario \(unknown.joined(separator: ", ")); known: "
                + ClipRenderer.scenarioNames.joined(separator: ", "))
        }
    }

    var parsedSize: (UInt32, UInt32)? {
        let parts = size.split(separator: "x").compactMap { UInt32($0) }
        return parts.count == 2 && parts.allSatisfy({ $0 >= 16 && $0 % 2 == 0 }) ? (parts[0], parts[1]) : nil
    }

    func run() async throws {
        let started = Date()
        let scores = if let dataset { try await scoreDataset(dataset) } else { try await scoreSyntheticSet() }
        let report = AccuracyReport(scores: scores)
        print(report.table())
        print()
        print(report.confidenceSummary())
        print(report.timingSummary())
        print(String(format: "%d clips in %.0f s", scores.count, Date().timeIntervalSince(started)))
        if let jsonOut {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(scores).write(to: URL(fileURLWithPath: jsonOut))
        }
    }

    private func scoreDataset(_ folder: String) async throws -> [ClipScore] {
        let url = URL(fileURLWithPath: folder)
        let files = try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
        let videos = files.filter { ["y4m", "mjpeg", "mjpg"].contains($0.pathExtension) }.sorted { $0.path < $1.path }
        guard !videos.isEmpty else { throw ValidationError("no .y4m or .mjpeg files in \(folder)") }
        var scores = [ClipScore]()
        for video in videos {
            let truthURL = video.deletingPathExtension().appendingPathExtension("json")
            let truth = try GroundTruthFile.load(truthURL)
            scores.append(report(await ClipEvaluator.score(video: video, truth: truth, name: video.lastPathComponent,
                                                           regions: regions)))
        }
        return scores
    }

    private func scoreSyntheticSet() async throws -> [ClipScore] {
        // By default the pulse scenarios only: the quality ones (too-dark, no-face, ...) are
        // for the quality monitor and may be named explicitly.
        let names = scenarios.map { $0.split(separator: ",").map(String.init) } ?? ClipRenderer.accuracyScenarioNames
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-accuracy-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var scores = [ClipScore]()
        for name in names {
            for seed in 1...seeds {
                let clip = try ClipRenderer.render(scenario: name, seed: UInt32(seed), into: folder,
                                                   name: "\(name)-\(seed)") { options in
                    options.duration_s = Float(duration)
                    if let (w, h) = parsedSize { options.width = w; options.height = h }
                }
                defer { try? FileManager.default.removeItem(at: clip.video); try? FileManager.default.removeItem(at: clip.truth) }
                let truth = try GroundTruthFile.load(clip.truth)
                scores.append(report(await ClipEvaluator.score(video: clip.video, truth: truth, name: "\(name)-\(seed)",
                                                               regions: regions)))
            }
        }
        return scores
    }

    private func report(_ score: ClipScore) -> ClipScore {
        if verbose {
            func f(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "–" }
            FileHandle.standardError.write(Data((
                "\(score.clip): HR \(f(score.heartRate)) (truth \(f(score.truthHeartRate))), conf "
                + "\(score.confidence.map { String(format: "%.2f", $0) } ?? "–"), RR \(f(score.respiratoryRate)) "
                + "(\(f(score.truthRespiratoryRate))), SDNN \(f(score.sdnn)) (\(f(score.truthSDNN)))"
                + (score.failure.map { " FAILED: \($0)" } ?? "")
                + String(format: " snr %.1f cons %.2f skin %.2f ", score.snr ?? .nan, score.consistency ?? .nan,
                         score.skinCoverage ?? .nan)
                + (score.breathing ?? []).joined(separator: ", ") + "\n"
            ).utf8))
        }
        return score
    }
}
