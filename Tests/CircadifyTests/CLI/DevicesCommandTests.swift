@testable import Circadify
import Testing

/// `circadify devices` as a process, against what the core finds on this machine.
@Suite struct DevicesCommandTests {
    @Test func listsEveryCameraWithItsAccessAndTheFixWhenDenied() async throws {
        let cameras = try CameraDevice.list()
        let run = try await CLIProcess.run(["devices"])
        #expect(run.status == 0, "\(run.stderr)")
        if cameras.isEmpty {
            #expect(run.stdout.contains("No capture devices found"))
        }
        for camera in cameras {
            #expect(run.stdout.contains(camera.path))
            #expect(run.stdout.contains("access: \(camera.access.rawValue)"))
            if camera.access == .denied {
                #expect(run.stdout.contains("sudo usermod -aG"))
                #expect(run.stdout.contains("SUBSYSTEM==\"video4linux\""))
            }
        }
    }
}
