@testable import Circadify
import CCore
import CCoreTestSupport
import Foundation
import Glibc
import Testing

/// The C core's errors as the public CircadifyError (DESIGN.md §4).
@Suite struct CoreErrorMappingTests {
    static func mapped(_ code: Int32, _ input: FrameSourceInput) -> CircadifyError {
        CircadifyError(CoreError(code: code, message: "detail"), reading: input)
    }

    static let camera = FrameSourceInput.device("/dev/video0")
    static let file = FrameSourceInput.file("/tmp/clip.y4m")

    @Test func cameraErrorsByCode() {
        #expect(Self.mapped(-ENOENT, Self.camera) == .cameraNotAvailable)
        #expect(Self.mapped(-ENXIO, Self.camera) == .cameraNotAvailable)
        #expect(Self.mapped(CCORE_E_NOT_CAPTURE, Self.camera) == .cameraNotAvailable)
        #expect(Self.mapped(-EISDIR, Self.camera) == .cameraNotAvailable, "--device /tmp is no camera, like /etc/passwd")
        #expect(Self.mapped(-EACCES, Self.camera) == .cameraPermissionDenied)
        #expect(Self.mapped(-EPERM, Self.camera) == .cameraPermissionDenied)
        #expect(Self.mapped(-EBUSY, Self.camera) == .cameraInUse)
        #expect(Self.mapped(-ENODEV, Self.camera) == .captureFailed("detail"))
        #expect(Self.mapped(CCORE_E_STREAM, Self.camera) == .captureFailed("detail"))
        #expect(Self.mapped(CCORE_E_NO_FORMAT, Self.camera) == .captureFailed("detail"))
    }

    @Test func everyFileErrorIsACaptureFailureWithItsDetail() {
        for code in [-ENOENT, -EACCES, -EISDIR, -EBUSY, CCORE_E_TRUNCATED, CCORE_E_CORRUPT, CCORE_E_UNSUPPORTED] {
            #expect(Self.mapped(code, Self.file) == .captureFailed("detail"), "code \(code)")
        }
    }

    @Test func misuseIsUnknownWhateverTheInput() {
        for input in [Self.camera, Self.file] {
            for code in [CCORE_E_STATE, -EINVAL, -ENOMEM] {
                guard case .unknown(let text) = Self.mapped(code, input) else {
                    Issue.record("code \(code) from \(input) is not .unknown")
                    continue
                }
                #expect(text.contains("detail"))
            }
        }
    }

    // The same mapping on errors the core really raises.

    @Test func missingFileNamesThePath() throws {
        let error = try #require(throws: CoreError.self) { _ = try FrameSource(.file("/nonexistent/clip.y4m")) }
        let mapped = CircadifyError(error, reading: .file("/nonexistent/clip.y4m"))
        guard case .captureFailed(let detail) = mapped else { Issue.record("got \(mapped)"); return }
        #expect(detail.contains("/nonexistent/clip.y4m"))
    }

    @Test func truncatedFileIsACaptureFailure() async throws {
        let header = Y4M.file(width: 64, height: 48, frames: [])
        let file = try TemporaryFile(named: "cut.y4m", contents: header + Array("FRAME\n".utf8) + [1, 2, 3])
        defer { file.cleanUp() }
        let input = FrameSourceInput.file(file.path)
        let source = try FrameSource(input)
        var mapped: CircadifyError?
        do {
            for try await _ in try await source.samples() {}
        } catch let error as CoreError {
            mapped = CircadifyError(error, reading: input)
        }
        await source.stop()
        guard case .captureFailed(let detail)? = mapped else {
            Issue.record("got \(String(describing: mapped))")
            return
        }
        #expect(!detail.isEmpty)
    }

    @Test func missingNodeIsNoCamera() throws {
        let error = try #require(throws: CoreError.self) { _ = try FrameSource(.device("/dev/video-circadify-none")) }
        #expect(CircadifyError(error, reading: .device("/dev/video-circadify-none")) == .cameraNotAvailable)
    }

    @Test func regularFileIsNotACamera() throws {
        let file = try TemporaryFile(named: "not-a-camera", contents: [0])
        defer { file.cleanUp() }
        let error = try #require(throws: CoreError.self) { _ = try FrameSource(.device(file.path)) }
        #expect(CircadifyError(error, reading: .device(file.path)) == .cameraNotAvailable)
    }
}
