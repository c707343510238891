import Testing

/// The camera-or-file options that `scan`, `preview` and `monitor` share
/// (`SourceOptions`): each command refuses the same mistakes with the same
/// message and exit status 64, before it opens anything.
@Suite struct SourceOptionsTests {
    static let commands = ["scan", "preview", "monitor"]
    static let mistakes: [([String], String)] = [
        (["--device", "/dev/video0", "--input", "a.y4m"], "give --device or --input, not both"),
        (["--device", "/dev/video0", "--fps", "15"], "--fps sets the frame rate of an MJPEG file (--input)"),
        (["--input", "a.mjpeg", "--fps", "0"], "a frame rate is a whole number of frames per second from 1 to 999"),
        (["--input", "a.mjpeg", "--fps", "-1"], "a frame rate is a whole number of frames per second from 1 to 999"),
    ]

    @Test(arguments: commands, mistakes)
    func everyCommandRefusesTheSameMistakes(_ command: String, _ mistake: ([String], String)) async throws {
        let run = try await CLIProcess.run([command] + mistake.0)
        #expect(run.status == 64, "\(command) \(mistake.0): \(run.stderr)")
        #expect(run.stderr.contains(mistake.1), "\(command) \(mistake.0): \(run.stderr)")
    }

    /// The monitor's own rules, checked after the shared ones.
    @Test(arguments: [
        (["--loop"], "--loop replays a file (--input); a camera runs until stopped"),
        (["--input", "a.y4m", "--export-vitals"], "--export-vitals adds to the metrics: give --metrics too"),
        (["--device", "/dev/video0", "--input", "a.y4m", "--loop"], "give --device or --input, not both"),
    ])
    func theMonitorsOwnRules(_ arguments: [String], _ message: String) async throws {
        let run = try await CLIProcess.run(["monitor"] + arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }
}
