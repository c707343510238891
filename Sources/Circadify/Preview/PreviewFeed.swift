import CCore
import Synchronization

/// A camera picture for the preview renderer, as the session took it: the
/// picture, its stream time, the face tracked then, and whether it is shown mirrored.
package struct PreviewSourceFrame: Sendable {
    package var image: RGBFrame
    package var time: Double
    package var face: CircadifyScanFace?
    package var mirrored: Bool

    package init(image: RGBFrame, time: Double, face: CircadifyScanFace?, mirrored: Bool) {
        self.image = image
        self.time = time
        self.face = face
        self.mirrored = mirrored
    }
}

/// The camera's full-size pictures, from whichever session runs, for the
/// preview renderers that subscribe. A camera owns one for its lifetime and
/// hands it to each session it opens: a session feeds it (turning the core's
/// full-size preview on) only while someone subscribes.
///
/// Each subscriber keeps only the newest picture: one that renders slowly
/// skips pictures, and publishing never waits for it, so the session (and the
/// measurement it runs) goes at the camera's pace whatever the viewers do.
package final class PreviewFeed: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<PreviewSourceFrame>.Continuation] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether anyone subscribes (cheap: the session asks every frame).
    package var isWanted: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// The pictures from now on, newest only; ends when the subscriber stops
    /// iterating (then it is forgotten) or never, while the camera lives.
    package func subscribe() -> AsyncStream<PreviewSourceFrame> {
        let (stream, continuation) = AsyncStream<PreviewSourceFrame>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            defer { state.next += 1 }
            state.subscribers[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `frame` to every subscriber, replacing any picture it has not taken yet.
    package func publish(_ frame: PreviewSourceFrame) {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.yield(frame) }
    }
}

extension RGBFrame {
    /// This picture fitted to a `maxSide` square, sampled as the core samples a
    /// frame (see `ccore_image_rgb_preview`): the same picture the core would
    /// have made from the frame when this one is the frame at full size.
    package func fitted(maxSide: UInt32) -> RGBFrame {
        var w: UInt32 = 0, h: UInt32 = 0
        ccore_preview_fit(UInt32(width), UInt32(height), maxSide, &w, &h)
        let ow = Int(w), oh = Int(h)
        guard ow > 0, oh > 0, ow != width || oh != height, pixels.count >= width * height * 3 else { return self }
        var out = [UInt8](repeating: 0, count: ow * oh * 3)
        for j in 0..<oh {
            let y = (2 * j + 1) * height / (2 * oh)
            for i in 0..<ow {
                let x = (2 * i + 1) * width / (2 * ow)
                let s = (y * width + x) * 3, d = (j * ow + i) * 3
                out[d] = pixels[s]; out[d + 1] = pixels[s + 1]; out[d + 2] = pixels[s + 2]
            }
        }
        return RGBFrame(width: ow, height: oh, sequence: sequence, pixels: out)
    }
}
