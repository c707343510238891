import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The page's live data as server-sent events: each message is formatted once and the
/// same bytes go to every subscriber. A new subscriber gets the latest message at once, so
/// a page loaded mid-scan shows the scan. A subscriber whose socket is full (a stalled
/// tab) skips messages instead of queueing them; the next one carries the whole state.
public final class EventFanout: Sendable {
    private struct State {
        var subscribers: [ObjectIdentifier: Channel] = [:]
        var latest: ByteBuffer?
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Subscribers connected now.
    public var subscriberCount: Int { state.withLockedValue { $0.subscribers.count } }

    func add(_ channel: Channel) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        channel.write(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)),
                      promise: nil)
        // The browser reconnects after 1 s if the stream breaks (a restarted server).
        var hello = ByteBufferAllocator().buffer(capacity: 16)
        hello.writeString("retry: 1000\n\n")
        channel.write(HTTPServerResponsePart.body(.byteBuffer(hello)), promise: nil)
        let key = ObjectIdentifier(channel)
        let latest = state.withLockedValue { state -> ByteBuffer? in
            state.subscribers[key] = channel
            return state.latest
        }
        if let latest { channel.write(HTTPServerResponsePart.body(.byteBuffer(latest)), promise: nil) }
        channel.flush()
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.subscribers.removeValue(forKey: key) }
        }
    }

    /// Sends `data` (one line of JSON) as an event named `event` to every subscriber.
    public func publish(event: String, data: String) {
        var message = ByteBufferAllocator().buffer(capacity: data.utf8.count + event.utf8.count + 16)
        message.writeString("event: \(event)\ndata: \(data)\n\n")
        let subscribers = state.withLockedValue { state in
            state.latest = message
            return Array(state.subscribers.values)
        }
        for channel in subscribers where channel.isWritable {
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(message)), promise: nil)
        }
    }

    func closeAll() {
        for channel in state.withLockedValue({ Array($0.subscribers.values) }) { channel.close(promise: nil) }
    }
}
