import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The live video's viewers: every frame is encoded once, whatever the number of
/// viewers, and the same bytes go to each (an MJPEG part shared by all the sockets).
///
/// A viewer still sending the previous frame skips this one, so a slow viewer sees a
/// lower frame rate and never holds frames in memory, nor slows the others or the
/// camera. A viewer that disconnects is forgotten with its socket.
public final class VideoFanout: Sendable {
    /// The multipart boundary between JPEG parts.
    static let boundary = "circadifyframe"
    /// The frames' JPEG quality: small enough for several viewers on a board's Wi-Fi.
    public static let jpegQuality = 80

    private struct Viewer {
        let channel: Channel
        /// True while the previous frame is still being written to this viewer.
        let sending: NIOLockedValueBox<Bool>
    }

    private struct State {
        var viewers: [ObjectIdentifier: Viewer] = [:]
        var encodes = 0
        var skipped = 0
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Viewers connected now.
    public var viewerCount: Int { state.withLockedValue { $0.viewers.count } }
    /// Frames encoded so far: one per published frame that had at least one viewer.
    public var encodeCount: Int { state.withLockedValue { $0.encodes } }
    /// Frames a viewer missed because it was still receiving the one before.
    public var skippedCount: Int { state.withLockedValue { $0.skipped } }

    /// Sends the response head and adds the channel as a viewer until it closes.
    func add(_ channel: Channel) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "multipart/x-mixed-replace; boundary=\(Self.boundary)")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
        channel.writeAndFlush(HTTPServerResponsePart.head(head), promise: nil)
        let key = ObjectIdentifier(channel)
        state.withLockedValue { $0.viewers[key] = Viewer(channel: channel, sending: NIOLockedValueBox(false)) }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.viewers.removeValue(forKey: key) }
        }
    }

    /// Publishes one frame: `encode` runs once if anyone watches (never otherwise) and its
    /// JPEG goes to every viewer that is ready for it. Returns whether it was encoded.
    @discardableResult
    public func publish(encode: () -> Data?) -> Bool {
        let viewers = state.withLockedValue { Array($0.viewers.values) }
        guard !viewers.isEmpty, let jpeg = encode() else { return false }
        state.withLockedValue { $0.encodes += 1 }
        let part = Self.part(jpeg)
        var skipped = 0
        for viewer in viewers {
            let busy = viewer.sending.withLockedValue { sending in
                defer { sending = true }
                return sending
            }
            if busy {
                skipped += 1
                continue
            }
            let sending = viewer.sending
            viewer.channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(part))).whenComplete { _ in
                sending.withLockedValue { $0 = false }
            }
        }
        if skipped > 0 { state.withLockedValue { $0.skipped += skipped } }
        return true
    }

    /// Closes every viewer's connection (the server is stopping).
    func closeAll() {
        let viewers = state.withLockedValue { Array($0.viewers.values) }
        for viewer in viewers { viewer.channel.close(promise: nil) }
    }

    /// One multipart part: its headers, the JPEG, and the line break before the next boundary.
    static func part(_ jpeg: Data) -> ByteBuffer {
        let header = "--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n"
        var buffer = ByteBufferAllocator().buffer(capacity: header.utf8.count + jpeg.count + 2)
        buffer.writeString(header)
        buffer.writeBytes(jpeg)
        buffer.writeString("\r\n")
        return buffer
    }
}
