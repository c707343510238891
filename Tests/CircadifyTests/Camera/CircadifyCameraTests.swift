import CCoreTestSupport
import Testing
@testable import Circadify

/// The camera object's lifecycle where no V4L2 device is involved; streaming from
/// a real driver is checked in the vivid guest (Tests/Integration).
@MainActor @Suite struct CircadifyCameraTests {
    @Test func aMissingNodeIsNotAvailableAndNotAuthorized() async {
        let camera = CircadifyCamera(devicePath: "/dev/video-circadify-none")
        #expect(camera.authorizationStatus == .notDetermined)
        #expect(await camera.requestAccess() == false)
        await #expect(throws: CircadifyError.cameraNotAvailable) { try await camera.start() }
        #expect(!camera.isRunning)
        #expect(camera.scanFace == nil)
    }

    @Test func aFileThatIsNotACameraIsNotAvailable() async throws {
        let file = try TemporaryFile(named: "not-a-camera", contents: [0])
        defer { file.cleanUp() }
        let camera = CircadifyCamera(devicePath: file.path, position: .back)
        await #expect(throws: CircadifyError.cameraNotAvailable) { try await camera.start() }
        #expect(!camera.isRunning)
    }

    @Test func trackingWithoutACameraPublishesNoFace() {
        let camera = CircadifyCamera(devicePath: "/dev/video-circadify-none")
        camera.startFaceTracking()
        #expect(camera.scanFace == nil)
        camera.stopFaceTracking()
        camera.stop()  // stopping a camera that never ran is harmless
        #expect(camera.scanFace == nil && !camera.isRunning)
    }

    /// A position's node is looked up off the main actor, by `requestAccess()` or `start()`.
    @Test func positionsPickTheirNode() async throws {
        let cameras = try CameraDevice.list()
        let front = CircadifyCamera(position: .front), back = CircadifyCamera(position: .back)
        _ = await front.requestAccess()
        _ = await back.requestAccess()
        #expect(front.devicePath == cameras.first?.path)
        #expect(back.devicePath == (cameras.count > 1 ? cameras[1].path : nil))
        #expect(CircadifyCamera(devicePath: "/dev/video7").devicePath == "/dev/video7")
    }

    @Test func aReplayedFileIsAuthorizedWhenReadable() async throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: [0])
        defer { file.cleanUp() }
        #expect(CircadifyCamera(replaying: file.path).authorizationStatus == .authorized)
        #expect(CircadifyCamera(replaying: "/nonexistent/clip.y4m").authorizationStatus == .notDetermined)
        await #expect(throws: CircadifyError.self) { try await CircadifyCamera(replaying: "/nonexistent/clip.y4m").start() }
    }
}
