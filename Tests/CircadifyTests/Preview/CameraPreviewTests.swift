import Foundation
import Synchronization
import Testing
@testable import Circadify

/// `CircadifyCameraPreview` on replay cameras: it renders the session's frames,
/// drives face tracking as the seed says, and never holds a measurement back.
@MainActor @Suite(.serialized) struct CameraPreviewTests {
    static let key = "ck_test_0123456789abcdef"

    /// Polls `read` on the main actor until it gives a value, for up to `seconds`: what is
    /// awaited must happen, not within a latency (these tests take ten times as long in the
    /// parallel suite on two cores as alone, and 8 s once ran out there).
    private func waitFor<T>(_ seconds: Double = 30, _ read: () -> T?) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let value = read() { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CircadifyError.timeout
    }

    @Test func showGuideTracksTheFaceWhileLiveAndStopsAfter() async throws {
        let clip = try await ReplayClip.render("still", seconds: 30) // long enough for a face found late on a loaded run
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path)
        try await camera.start()
        let preview = CircadifyCameraPreview(camera: camera)
        let frames = preview.frames()
        try await Task.sleep(for: .milliseconds(600))
        #expect(camera.scanFace == nil, "nothing tracks before the preview appears")
        preview.start()
        #expect(preview.isLive)
        let face = try await waitFor { camera.scanFace }
        #expect(face.isMirrored == false, "a replay is shown as recorded")
        var iterator = frames.makeAsyncIterator()
        let frame = try #require(await iterator.next())
        #expect(frame.width == 320 && frame.height == 240 && frame.pixels.count == 320 * 240 * 4)
        preview.stop()
        #expect(!preview.isLive && camera.scanFace == nil)
        try await Task.sleep(for: .milliseconds(600))
        #expect(camera.scanFace == nil, "tracking stays off after the preview is gone")
        // Without the guide the preview renders but leaves tracking alone.
        let plain = CircadifyCameraPreview(camera: camera, showGuide: false)
        let before = plain.renderCounts.rendered
        plain.start()
        _ = try await waitFor { plain.renderCounts.rendered > before + 5 ? true : nil }
        #expect(camera.scanFace == nil)
        // Turning the guide on while live starts tracking, off stops it.
        plain.showGuide = true
        _ = try await waitFor { camera.scanFace }
        plain.showGuide = false
        #expect(camera.scanFace == nil)
        plain.stop()
        await camera.release()
    }

    /// The same camera picture rendered by two previews, one with a green glow and
    /// one without: they differ on the forehead and cheeks of the tracked face and
    /// nowhere far from it.
    @Test func aPreviewDroppedWhileLiveStopsTheTrackingItStarted() async throws {
        let clip = try await ReplayClip.render("still", seconds: 30) // long enough for a face found late on a loaded run
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path)
        try await camera.start()
        var preview: CircadifyCameraPreview? = CircadifyCameraPreview(camera: camera)
        preview?.start()
        _ = try await waitFor { camera.scanFace }
        preview = nil // gone without stop()
        _ = try await waitFor { camera.scanFace == nil ? true : nil }
        try await Task.sleep(for: .milliseconds(600))
        #expect(camera.scanFace == nil, "tracking stays off after the preview was dropped")
        await camera.release()
    }

    /// Adds `frame` by its time, keeping the last second's (a frame is 300 KB; that is enough to pair).
    private nonisolated static func keep(_ frame: CircadifyPreviewFrame, in frames: inout [Double: CircadifyPreviewFrame]) {
        frames[frame.timestamp] = frame
        if frames.count > 30, let oldest = frames.keys.min() { frames[oldest] = nil }
    }

    @Test func theLiveGlowLandsOnTheTrackedFace() async throws {
        let clip = try await ReplayClip.render("still", seconds: 30) // long enough for a face found late on a loaded run
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path)
        let glowing = CircadifyCameraPreview(camera: camera, isScanning: true,
                                             style: PreviewFixtures.uniform(Color(red: 0, green: 1, blue: 0)))
        let plain = CircadifyCameraPreview(camera: camera, showGuide: false)
        glowing.start()
        plain.start()
        // Both read from before the camera starts, so no frame of the replay is missed
        // however late the face is found on a loaded machine (the preview streams do not
        // end with the replay: a pair looked for only after it ended was a hang).
        let lits = Mutex([Double: CircadifyPreviewFrame]()), bares = Mutex([Double: CircadifyPreviewFrame]())
        let readers = [
            Task.detached { for await frame in glowing.frames() { lits.withLock { Self.keep(frame, in: &$0) } } },
            Task.detached { for await frame in plain.frames() { bares.withLock { Self.keep(frame, in: &$0) } } },
        ]
        defer { readers.forEach { $0.cancel() } }
        try await camera.start()
        let face = try await waitFor { camera.scanFace }
        // A frame both rendered, from after the face was found (the glow needs it). The
        // newest frame read when the face shows may be a few behind the session: the
        // frames between were taken before the face was found and carry none (a loaded
        // sanitized run paired one of those), so the pair comes from half a second later.
        let pairAfter = lits.withLock { $0.keys.max() ?? -.infinity } + 0.5
        let (lit, bare) = try await waitFor(20) { () -> (CircadifyPreviewFrame, CircadifyPreviewFrame)? in
            let lit = lits.withLock { $0 }, bare = bares.withLock { $0 }
            guard let time = lit.keys.filter({ $0 > pairAfter && bare[$0] != nil }).min(),
                  let one = lit[time], let other = bare[time] else { return nil }
            return (one, other)
        }
        for anchor in [face.forehead, face.leftCheek, face.rightCheek] {
            let p = PreviewFixtures.pixel(anchor, width: 320, height: 240)
            let a = try #require(lit.pixel(x: p.x, y: p.y)), b = try #require(bare.pixel(x: p.x, y: p.y))
            // Blended toward pure green: greener than the skin by far, and no redder or bluer.
            #expect(Int(a.g) - Int(a.r) > Int(b.g) - Int(b.r) + 60 && a.r < b.r && a.b < b.b && a.g >= b.g,
                    "\(anchor) at \(lit.timestamp) s (paired after \(pairAfter) s): glowing \(a), plain \(b)")
        }
        for far in [(4, 4), (315, 4), (4, 235), (315, 235)] {
            #expect(lit.pixel(x: far.0, y: far.1)! == bare.pixel(x: far.0, y: far.1)!, "\(far) is far from the face")
        }
        glowing.stop()
        plain.stop()
        await camera.release()
    }

    /// Viewers that never read, JPEG and RGBA, while a measurement runs on the
    /// same lockstep replay: the result is the one measured without a preview.
    @Test func aViewerThatNeverReadsChangesNoMeasurement() async throws {
        let clip = try await ReplayClip.render("still", seconds: 14, heartRate: 72)
        defer { clip.cleanUp() }
        let sdk = try CircadifySDK(apiKey: Self.key)
        let alone = CircadifyCamera(replaying: clip.path, pace: .asFastAsProcessed)
        let expected = try await sdk.measureVitals(camera: alone, options: MeasurementOptions(duration: 12))
        await alone.release()

        let camera = CircadifyCamera(replaying: clip.path, pace: .asFastAsProcessed)
        let preview = CircadifyCameraPreview(camera: camera, isScanning: true)
        let stuckFrames = preview.frames(), stuckJPEGs = preview.jpegFrames()
        preview.start()
        let result = try await sdk.measureVitals(camera: camera, options: MeasurementOptions(duration: 12))
        #expect(result.heartRate == expected.heartRate && result.hrv == expected.hrv
                && result.respiratoryRate == expected.respiratoryRate && result.confidence == expected.confidence,
                "with the preview \(result), without \(expected)")
        let counts = preview.renderCounts
        #expect(counts.rendered > 10 && counts.encoded > 10, "the preview rendered and encoded meanwhile: \(counts)")
        preview.stop()
        await camera.release()
        _ = (stuckFrames, stuckJPEGs)
    }

    /// Three MJPEG viewers cost one encode per frame; each gets decodable JPEGs;
    /// imageOutput keeps its small picture while the preview takes full-size ones.
    @Test func viewersShareOneEncodeAndImageOutputKeepsItsSize() async throws {
        let clip = try await ReplayClip.render("still", seconds: 8, width: 640, height: 480)
        defer { clip.cleanUp() }
        let sdk = try CircadifySDK(apiKey: Self.key)
        let camera = CircadifyCamera(replaying: clip.path)
        let preview = CircadifyCameraPreview(camera: camera)
        preview.start()
        sdk.imageOutputEnabled = true
        let images = sdk.images()
        try await sdk.startMonitoring(camera: camera)
        let viewers = (0..<3).map { _ in preview.jpegFrames() }
        let received = try await withThrowingTaskGroup(of: Int.self) { group in
            for viewer in viewers {
                group.addTask {
                    var count = 0
                    for await jpeg in viewer {
                        #expect(jpeg.starts(with: [0xFF, 0xD8]))
                        count += 1
                        if count == 15 { break }
                    }
                    return count
                }
            }
            var counts = [Int]()
            for try await count in group { counts.append(count) }
            return counts
        }
        #expect(received == [15, 15, 15])
        let counts = preview.renderCounts
        #expect(counts.encoded <= counts.rendered, "one encode per rendered frame at most: \(counts)")
        #expect(counts.encoded >= 15)
        let frame = try #require(preview.latestFrame)
        #expect(frame.width == 640 && frame.height == 480)
        var iterator = images.makeAsyncIterator()
        let image = try #require(await iterator.next())
        #expect(image.width == 320 && image.height == 240)
        // Snapshots of the newest frame.
        let png = try PNGReader.read(preview.pngSnapshot())
        #expect(png.width == 640 && png.height == 480)
        #expect(try preview.jpegSnapshot().starts(with: [0xFF, 0xD8]))
        preview.isScanning = true
        preview.stop()
        await sdk.stopMonitoring()
        await camera.release()
    }

    @Test func aSnapshotBeforeTheFirstFrameSaysSo() {
        let preview = CircadifyCameraPreview(camera: CircadifyCamera(replaying: "/nonexistent/clip.y4m"))
        #expect(preview.latestFrame == nil)
        #expect(throws: CircadifyError.self) { try preview.pngSnapshot() }
        #expect(throws: CircadifyError.self) { try preview.jpegSnapshot() }
    }

    /// A front camera's session (mirrored) hands the preview mirrored pictures, and
    /// the preview shows them flipped; the feed's other subscriber sees them as recorded.
    @Test func aFrontCamerasSessionIsShownMirrored() async throws {
        let clip = try await ReplayClip.render("still", seconds: 6)
        defer { clip.cleanUp() }
        let feed = PreviewFeed()
        let engine = PreviewEngine(.init(showGuide: false, isScanning: false, style: CircadifyScanStyle(), jpegQuality: 80))
        let raw = Mutex([Double: PreviewSourceFrame]())
        let rawPictures = feed.subscribe()
        let reader = Task.detached { for await picture in rawPictures { raw.withLock { $0[picture.time] = picture } } }
        defer { reader.cancel() }
        let rendered = engine.frames()
        engine.start(feed)
        let session = ScanSession(.replay(path: clip.path, fps: 30, pace: .realtime), mirrored: true, feed: feed)
        try await session.start()
        var match: (PreviewSourceFrame, CircadifyPreviewFrame)?
        for await frame in rendered {
            if let picture = raw.withLock({ $0[frame.timestamp] }) {
                match = (picture, frame)
                break
            }
        }
        await session.stop()
        engine.stop()
        let (picture, frame) = try #require(match)
        #expect(picture.mirrored)
        let w = picture.image.width
        #expect(frame.width == w && frame.height == picture.image.height)
        for (x, y) in [(0, 0), (10, 100), (w - 1, 200), (w / 3, 120)] {
            let source = picture.image.pixels[(y * w + (w - 1 - x)) * 3 ..< (y * w + (w - 1 - x)) * 3 + 3]
            let shown = frame.pixel(x: x, y: y)!
            #expect([shown.r, shown.g, shown.b] == Array(source), "(\(x), \(y)) shows the picture's (\(w - 1 - x), \(y))")
        }
    }
}
