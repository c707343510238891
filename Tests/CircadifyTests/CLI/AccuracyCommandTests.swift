import Foundation
import Glibc
import Testing

/// `circadify-accuracy` as the team runs it: arguments that would score the wrong clips or
/// lose the run are refused before anything renders, and Ctrl-C keeps what was scored.
@Suite struct AccuracyCommandTests {
    static func run(_ arguments: [String]) async throws -> CLIProcess.Output {
        try await CLIProcess.run(arguments, product: "circadify-accuracy", timeout: .seconds(60))
    }

    @Test(arguments: [
        (["--seeds", "0"], "--seeds must be 1 to 1000"),
        (["--seeds", "1001", "--split", "tune"], "--seeds must be 1 to 1000"),
        (["--seeds", "9223372036854775807"], "--seeds must be 1 to 1000"),
        (["--cuts", "5,abc"], "--cuts must be whole numbers"),
        (["--cuts", "7.5,8"], "--cuts must be whole numbers"),
        (["--cuts", "4"], "--cuts must be whole numbers of seconds, at least 5"),
        (["--cuts", "10,10"], "each once"),
        (["--scenarios", ","], "unknown scenario ''"),
        (["--scenarios", "still,still"], "names a scenario twice"),
        (["--split", "tune", "--scenarios", "still,board"], "held out for validation"),
        (["--split", "validate", "--fit-confidence"], "only measured"),
        (["--json-out", "/nonexistent-circadify/x.json"], "does not exist"),
    ])
    func aBadCommandLineIsRefusedBeforeAnyClip(arguments: [String], message: String) async throws {
        let output = try await Self.run(arguments)
        #expect(output.status == 64, "\(arguments): \(output.stderr)")
        #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    /// Ctrl-C during the first clip: the clip being scored is finished, the clips scored are
    /// reported and written, the rendered clips' folder is removed, and the exit status is 130.
    @Test func ctrlCKeepsWhatWasScoredAndCleansUp() async throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("accuracy-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        var folder = ""
        // As many seeds as it takes: the run is stopped, however long the signal takes to come.
        let output = try await CLIProcess.run(["--scenarios", "still", "--seeds", "1000", "--duration", "10", "--size", "160x120",
                                               "--verbose", "--json-out", json.path],
                                              product: "circadify-accuracy", timeout: .seconds(120)) { process in
            let clips = FileManager.default.temporaryDirectory
                .appendingPathComponent("circadify-accuracy-\(process.processIdentifier)").path
            folder = clips
            // A second after its folder is there, within the first clip: it is finished first.
            await CLIProcess.signal(process.processIdentifier, SIGINT, once: { FileManager.default.fileExists(atPath: clips) })
        }
        #expect(!output.signalled && output.status == 130, "\(output.stderr)")
        #expect(output.stderr.contains("stopped by SIGINT (Ctrl-C) after"), "\(output.stderr)")
        let scores = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [[String: Any]])
        #expect(!scores.isEmpty && scores.count < 1000, "\(scores.count) clips written")
        // The clip being scored when the signal came was finished, not cut short and failed.
        #expect(scores.allSatisfy { $0["failure"] == nil }, "\(scores.compactMap { $0["failure"] })")
        #expect(output.stdout.contains("| still |"), "the table of what was scored: \(output.stdout)")
        #expect(!folder.isEmpty && !FileManager.default.fileExists(atPath: folder), "the rendered clips' folder is removed")
    }
}
