import Foundation
import Glibc
import Testing

/// `circadify monitor`'s errors as a fleet's operator reads them: what cannot work stops it
/// before a camera opens, and a camera that will not open says why on every attempt.
@Suite struct MonitorCommandTests {
    /// A taken metrics port ends the command at once, exit 69, with nothing on stdout: no
    /// "started" or "camera" line for a service that never ran (it used to open the camera
    /// first and then report a "shutdown").
    @Test func aMetricsPortInUseStopsItBeforeTheCameraOpens() async throws {
        let listener = try Listener()
        let run = try await CLIProcess.run(["monitor", "--device", "/dev/video99",
                                            "--metrics", "127.0.0.1:\(listener.port)"], timeout: .seconds(30))
        #expect(!run.signalled)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stdout.isEmpty, "nothing ran, so nothing is reported: \(run.stdout)")
        let named = "cannot listen on 127.0.0.1:\(listener.port): the port is already in use"
        #expect(run.stderr.contains(named), "\(run.stderr)")
    }

    /// The SDK's camera errors are the seed's fixed texts ("No camera on this device"); the
    /// error line and the log add what the node says, as `scan` does.
    @Test func aCameraThatIsNotThereIsExplainedOnEveryAttempt() async throws {
        let run = try await CLIProcess.run(["monitor", "--device", "/dev/video99"], timeout: .seconds(30)) { process in
            try await Task.sleep(for: .milliseconds(1500))
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(run.status == 0, "\(run.stderr)")
        let errors = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["type"] as? String == "error" }
        #expect(!errors.isEmpty, "\(run.stdout)")
        for error in errors {
            #expect(error["error"] as? String == "cameraNotAvailable"
                    && (error["hint"] as? String)?.contains("no device node at /dev/video99") == true, "\(error)")
        }
        #expect(run.stderr.contains("reason=no device node at /dev/video99"), "\(run.stderr)")
    }
}
