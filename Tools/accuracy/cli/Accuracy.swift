import AccuracyKit
import ArgumentParser
import Foundation
import Glibc
import GroundTruthKit
import ProcessSignals
import Synchronization

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

            --split tune|validate renders the two halves of the wider set (every pulse scenario with \
            the seed varying the person and the pulse's shape): tune is seeds 1...N without `board`, \
            what thresholds and the confidence map are fitted on; validate is seeds 1001...1000+N with \
            `board`, only ever measured. --cache DIR keeps each clip's measured frames, so a changed \
            signal pipeline is re-scored without rendering again. --fit-confidence fits the confidence \
            map on the clips scored and prints it as Swift for ConfidenceModel.swift; --plots DIR writes \
            a reliability diagram and a Bland-Altman plot (SVG).

            Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops after the clip being scored: the clips scored \
            so far are reported (and written to --json-out), the temporary folder is removed, and \
            the exit status is 130.
            """)

    enum Split: String, ExpressibleByArgument {
        case tune, validate
        /// The first seed of the split: the halves never share a person.
        var firstSeed: Int { self == .tune ? 1 : 1001 }
        /// `board` combines what the others test one at a time; it is held out for validation.
        func scenarios(_ all: [String]) -> [String] { self == .tune ? all.filter { $0 != "board" } : all }
    }

    @Option(help: "Seeds per scenario (at most 1000: a split's range).") var seeds = 5
    @Option(help: "Scenarios, comma-separated (default: still ... hard; see circadify-groundtruth --list).")
    var scenarios: String?
    @Option(help: "Clip length, seconds.") var duration = 30.0
    @Option(help: "Frame size, WIDTHxHEIGHT.") var size = "640x480"
    @Option(help: "Score the clips in this folder instead of rendering the synthetic set.") var dataset: String?
    @Option(help: "Write every clip's score as JSON here.") var jsonOut: String?
    @Flag(help: "Print one line per clip as it is scored.") var verbose = false
    @Option(help: "Where the measured regions come from: tracker (the face detector, as a scan) or truth.")
    var regions = ClipEvaluator.RegionSource.tracker
    @Option(help: "tune or validate: the wider set's halves (seeds 1..., or 1001... with board), with variety.")
    var split: Split?
    @Flag(help: "Let the seed vary the person and the pulse's shape (always on with --split).") var variety = false
    @Option(help: "Keep measured frames here and reuse them (keyed by scenario, seed, variety and regions).")
    var cache: String?
    @Flag(help: "Fit the confidence map on these clips and print it (use with --split tune).") var fitConfidence = false
    @Option(help: "Write reliability.svg and bland-altman.svg into this folder.") var plots: String?
    @Option(help: "Also score shorter scans cut from each clip, these lengths in seconds (e.g. 8,10,12,15): summarized apart, and fitted on with --fit-confidence.")
    var cuts: String?

    @Option(help: "With --fit-confidence: also fit on the clips of this --json-out file (the same split at another size or length); repeatable.")
    var fitWith: [String] = []

    /// The --cuts lengths: whole seconds (they name the scans), every entry parsed; nil when one is not.
    var parsedCuts: [Double]? {
        guard let cuts else { return [] }
        let lengths = cuts.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard !lengths.isEmpty, lengths.allSatisfy({ ($0 ?? 0) >= 5 }), Set(lengths).count == lengths.count else { return nil }
        return lengths.compactMap { $0.map(Double.init) }
    }

    var cutLengths: [Double] { parsedCuts ?? [] }

    /// The --scenarios names, as given.
    var scenarioList: [String]? { scenarios.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } }

    func validate() throws {
        if !(1...1000).contains(seeds) { throw ValidationError("--seeds must be 1 to 1000, got \(seeds)") }
        if !(duration >= 10) { throw ValidationError("--duration must be at least 10 seconds") }
        if parsedCuts == nil {
            throw ValidationError("--cuts must be whole numbers of seconds, at least 5, each once, comma-separated (e.g. 8,10,12), got '\(cuts ?? "")'")
        }
        if parsedSize == nil { throw ValidationError("--size must look like 640x480 (even numbers)") }
        if let names = scenarioList {
            let unknown = names.filter { !ClipRenderer.scenarioNames.contains($0) }
            if !unknown.isEmpty {
                throw ValidationError("unknown scenario '\(unknown.joined(separator: "', '"))'; known: "
                    + ClipRenderer.scenarioNames.joined(separator: ", "))
            }
            if Set(names).count != names.count { throw ValidationError("--scenarios names a scenario twice: \(scenarios ?? "")") }
        }
        // The halves never share a clip: tuning sees neither `board` nor a validation seed
        // (seeds stop at 1000), and nothing is fitted on the validation half.
        if split == .tune, scenarioList?.contains("board") == true {
            throw ValidationError("--split tune leaves board out: it is held out for validation")
        }
        if split == .validate, fitConfidence {
            throw ValidationError("--fit-confidence fits on the tune split; the validate split is only measured")
        }
        for (option, path) in [("--json-out", jsonOut), ("--plots", plots)] {
            guard let path else { continue }
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("\(option) \(path): the folder \(parent) does not exist")
            }
        }
    }

    var parsedSize: (UInt32, UInt32)? {
        let parts = size.split(separator: "x").compactMap { UInt32($0) }
        return parts.count == 2 && parts.allSatisfy({ $0 >= 16 && $0 % 2 == 0 }) ? (parts[0], parts[1]) : nil
    }

    func run() async throws {
        let started = Date()
        // The first signal stops after the clip being scored (asked, not cancelled: a cancelled
        // clip would end short and be scored, and cached, as if whole); a second one exits at once.
        let stop = StopRequest()
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP], first: { _ in stop.request() }, again: { number in
            FileHandle.standardError.write(Data("circadify-accuracy: \(SignalTrap.name(number)) received again; exited at once\n".utf8))
            Foundation.exit(130)
        })
        let scores = if let dataset { try await scoreDataset(dataset, until: stop) } else { try await scoreSyntheticSet(until: stop) }
        let stoppedBy = trap.received
        // The scores are written before anything else can fail (the plots, the fit).
        if let jsonOut {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(scores).write(to: URL(fileURLWithPath: jsonOut), options: .atomic)
        }
        let report = AccuracyReport(scores: scores)
        print(report.table())
        print()
        print(report.confidenceSummary())
        print(report.timingSummary())
        let cutScores = scores.flatMap { $0.cuts ?? [] }
        if !cutScores.isEmpty {
            print()
            print("Shorter scans cut from these clips (\(cuts ?? "")):")
            let cutReport = AccuracyReport(scores: cutScores)
            print(cutReport.confidenceSummary())
            cutReport.cutLengthSummary(cutLengths).forEach { print($0) }
        }
        print(String(format: "%d clips in %.0f s", scores.count, Date().timeIntervalSince(started)))
        // A run stopped midway is reported as far as it went, not plotted or fitted on.
        if let plots, stoppedBy == nil {
            let folder = URL(fileURLWithPath: plots)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Plots.reliability(scores).write(to: folder.appendingPathComponent("reliability.svg"), atomically: true,
                                                encoding: .utf8)
            try Plots.blandAltman(scores).write(to: folder.appendingPathComponent("bland-altman.svg"), atomically: true,
                                                encoding: .utf8)
            print("plots: \(folder.path)/reliability.svg, bland-altman.svg")
        }
        if fitConfidence, stoppedBy == nil {
            print()
            var more = [ClipScore]()
            for file in fitWith {
                let other = try JSONDecoder().decode([ClipScore].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
                more += other + other.flatMap { $0.cuts ?? [] }
            }
            print(try ConfidenceFit.fit(scores + cutScores + more).swiftSource())
        }
        if let stoppedBy {
            FileHandle.standardError.write(Data("circadify-accuracy: stopped by \(SignalTrap.name(stoppedBy)) after \(scores.count) clips\n".utf8))
            throw ExitCode(130)
        }
        withExtendedLifetime(trap) {}
    }

    private func scoreDataset(_ folder: String, until stop: StopRequest) async throws -> [ClipScore] {
        let url = URL(fileURLWithPath: folder)
        let files = try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
        let videos = files.filter { ["y4m", "mjpeg", "mjpg"].contains($0.pathExtension) }.sorted { $0.path < $1.path }
        guard !videos.isEmpty else { throw ValidationError("no .y4m or .mjpeg files in \(folder)") }
        var scores = [ClipScore]()
        for video in videos where !stop.isRequested {
            let truthURL = video.deletingPathExtension().appendingPathExtension("json")
            let truth = try GroundTruthFile.load(truthURL)
            scores.append(report(await ClipEvaluator.score(video: video, truth: truth, name: video.lastPathComponent,
                                                           regions: regions, cuts: cutLengths)))
        }
        return scores
    }

    private func scoreSyntheticSet(until stop: StopRequest) async throws -> [ClipScore] {
        // By default the pulse scenarios only: the quality ones (too-dark, no-face, ...) are
        // for the quality monitor and may be named explicitly.
        let all = ClipRenderer.accuracyScenarioNames
        let names = scenarioList ?? (split?.scenarios(all) ?? all)
        let firstSeed = split?.firstSeed ?? 1
        let varied = variety || split != nil
        let cacheURL = cache.map { URL(fileURLWithPath: $0) }
        if let cacheURL { try FileManager.default.createDirectory(at: cacheURL, withIntermediateDirectories: true) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-accuracy-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var scores = [ClipScore]()
        for name in names {
            for seed in firstSeed..<(firstSeed + seeds) where !stop.isRequested {
                let clipName = "\(name)-\(seed)" + (varied ? "v" : "")
                // Frames measured before (same scenario, seed, variety and region source): no render.
                if let cacheURL, FileManager.default.fileExists(atPath: FrameCache.framesURL(cacheURL, clip: clipName,
                                                                                               source: regions).path) {
                    let truth = try GroundTruthFile.load(FrameCache.truthURL(cacheURL, clip: clipName))
                    scores.append(report(await ClipEvaluator.score(video: nil, truth: truth, name: clipName,
                                                                   regions: regions, cache: cacheURL, cuts: cutLengths)))
                    continue
                }
                let clip = try ClipRenderer.render(scenario: name, seed: UInt32(seed), into: folder,
                                                   name: clipName) { options in
                    options.duration_s = Float(duration)
                    options.variety = varied ? 1 : 0
                    if let (w, h) = parsedSize { options.width = w; options.height = h }
                }
                defer { try? FileManager.default.removeItem(at: clip.video); try? FileManager.default.removeItem(at: clip.truth) }
                if let cacheURL {
                    let kept = FrameCache.truthURL(cacheURL, clip: clipName)
                    try? FileManager.default.removeItem(at: kept)
                    try FileManager.default.copyItem(at: clip.truth, to: kept)
                }
                let truth = try GroundTruthFile.load(clip.truth)
                scores.append(report(await ClipEvaluator.score(video: clip.video, truth: truth, name: clipName,
                                                               regions: regions, cache: cacheURL, cuts: cutLengths)))
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
                + (score.breathing ?? []).joined(separator: ", ")
                + " | " + (score.reliability ?? []).map { String(format: "%.2f", $0) }.joined(separator: " ") + "\n"
            ).utf8))
        }
        return score
    }
}

extension ClipEvaluator.RegionSource: ExpressibleByArgument {}

/// The first signal's request to stop after the clip being scored.
private final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)

    func request() { requested.store(true, ordering: .relaxed) }

    var isRequested: Bool { requested.load(ordering: .relaxed) }
}
