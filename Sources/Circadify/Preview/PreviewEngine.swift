import Foundation
import Synchronization

/// The preview's rendering, on its own task (never the capture thread, never
/// the main actor): takes the camera's newest picture from the feed, draws the
/// overlay with the current settings, and hands the result to every
/// subscriber — RGBA frames, and one JPEG encode per frame shared by all the
/// JPEG subscribers. Every subscriber keeps only the newest output: a slow one
/// misses frames and slows nothing else.
package final class PreviewEngine: Sendable {
    package struct Settings: Sendable {
        var showGuide: Bool
        var isScanning: Bool
        var style: CircadifyScanStyle
        var jpegQuality: Int
    }

    private struct Outputs {
        var frames: [Int: AsyncStream<CircadifyPreviewFrame>.Continuation] = [:]
        var jpegs: [Int: AsyncStream<Data>.Continuation] = [:]
        var next = 0
        var latest: CircadifyPreviewFrame?
        var rendered: UInt64 = 0
        var encoded: UInt64 = 0
    }

    private let settings: Mutex<Settings>
    private let outputs = Mutex(Outputs())
    private let loop = Mutex<Task<Void, Never>?>(nil)

    package init(_ settings: Settings) {
        self.settings = Mutex(settings)
    }

    deinit {
        loop.withLock { $0?.cancel() }
        outputs.withLock { outputs in
            for continuation in outputs.frames.values { continuation.finish() }
            for continuation in outputs.jpegs.values { continuation.finish() }
        }
    }

    package func update(_ change: (inout Settings) -> Void) {
        settings.withLock { change(&$0) }
    }

    package var current: Settings { settings.withLock { $0 } }

    /// Starts rendering `feed`'s pictures (idempotent).
    package func start(_ feed: PreviewFeed) {
        loop.withLock { loop in
            guard loop == nil else { return }
            let pictures = feed.subscribe()
            loop = Task.detached(priority: .userInitiated) { [weak self] in
                var renderer: OverlayRenderer?
                let encoder = JPEGEncoder()
                for await picture in pictures {
                    guard let self, !Task.isCancelled else { return }
                    self.render(picture, with: &renderer, encoder: encoder)
                }
            }
        }
    }

    /// Stops rendering: the feed forgets this preview, the outputs stay open for a later start.
    package func stop() {
        loop.withLock { loop in
            loop?.cancel()
            loop = nil
        }
    }

    private func render(_ picture: PreviewSourceFrame, with renderer: inout OverlayRenderer?, encoder: JPEGEncoder) {
        let now = current
        if renderer?.style != now.style { renderer = OverlayRenderer(style: now.style) }
        guard let renderer else { return }
        let frame = renderer.render(picture.image, mirrored: picture.mirrored, face: picture.face, guide: now.showGuide,
                                    scanning: now.isScanning, time: picture.time)
        let (frameSubscribers, jpegSubscribers) = outputs.withLock { outputs in
            outputs.latest = frame
            outputs.rendered += 1
            return (Array(outputs.frames.values), Array(outputs.jpegs.values))
        }
        for subscriber in frameSubscribers { subscriber.yield(frame) }
        guard !jpegSubscribers.isEmpty, let jpeg = try? encoder.encode(frame, quality: now.jpegQuality) else { return }
        outputs.withLock { $0.encoded += 1 }
        for subscriber in jpegSubscribers { subscriber.yield(jpeg) }
    }

    // MARK: - Outputs

    package func frames() -> AsyncStream<CircadifyPreviewFrame> {
        subscribe(\.frames)
    }

    package func jpegFrames() -> AsyncStream<Data> {
        subscribe(\.jpegs)
    }

    private func subscribe<Element: Sendable>(_ list: WritableKeyPath<Outputs, [Int: AsyncStream<Element>.Continuation]> & Sendable)
        -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = outputs.withLock { outputs in
            defer { outputs.next += 1 }
            outputs[keyPath: list][outputs.next] = continuation
            return outputs.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.outputs.withLock { _ = $0[keyPath: list].removeValue(forKey: id) }
        }
        return stream
    }

    package var latest: CircadifyPreviewFrame? { outputs.withLock { $0.latest } }

    /// Pictures rendered and JPEG encodes made so far (one encode per picture however many watch).
    package var counts: (rendered: UInt64, encoded: UInt64) { outputs.withLock { ($0.rendered, $0.encoded) } }
}
