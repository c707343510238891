import ArgumentParser
import Foundation

@main
struct Circadify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "circadify",
        abstract: "Contactless vital signs from a V4L2 camera or a video file.",
        discussion: """
            `scan` measures heart rate, heart-rate variability and breathing from a face; `monitor` \
            does so continuously as a service (JSON Lines, Prometheus metrics); `devices` \
            lists the cameras and whether this user may open them; `faces` finds faces in a photo; `samples` prints what the \
            realtime core measures per frame (mean skin colour of the forehead and cheeks, luma, drops).
            """,
        subcommands: [Scan.self, Monitor.self, Preview.self, Devices.self, Faces.self, Samples.self])

    /// ArgumentParser's `main`, plus what every command needs first: the standard streams made
    /// safe (`Terminal.closedAtStart`), and a bad `scan --json` command line answered with the
    /// one JSON object that contract promises, not an empty stdout.
    static func main() async {
        _ = Terminal.closedAtStart
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: ParsableCommand
        do {
            command = try await asyncParseAsRoot(arguments)
        } catch {
            if exitCode(for: error).rawValue == CommandExitCode.usage, UsageError.wantsJSON(arguments) {
                UsageError.writeJSON(message(for: error))
            }
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// A bad command line under `scan --json`: `{"error": "usage", "message": …, "retryable": false}`.
enum UsageError {
    static func wantsJSON(_ arguments: [String]) -> Bool {
        // `--json=true` is a usage error of its own (a flag takes no value), but it asks for JSON.
        arguments.first == "scan" && arguments.prefix { $0 != "--" }.contains { $0 == "--json" || $0.hasPrefix("--json=") }
    }

    static func writeJSON(_ message: String) {
        struct Payload: Encodable { var error = "usage", message: String, retryable = false }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(Payload(message: message)) else { return }
        _ = Terminal.writeOutput(String(decoding: data, as: UTF8.self) + "\n") // the exit status says 64 anyway
    }
}
