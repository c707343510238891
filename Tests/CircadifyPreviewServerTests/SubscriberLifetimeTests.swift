@testable import CircadifyPreviewServer
import Testing

/// Viewers and event subscribers that go away are forgotten with their sockets, however
/// they leave: after the head, before it, or mid-stream.
@Suite(.serialized) struct SubscriberLifetimeTests {
    @Test func connectingAndLeavingManyTimesLeavesNoSubscriber() async throws {
        let video = VideoFanout(), events = EventFanout()
        let server = try await PreviewServer(host: "127.0.0.1", port: 0,
                                             routes: PreviewRoutes(video: video, events: events) { .started })
        defer { Task { await server.stop() } }
        var peakVideo = 0, peakEvents = 0
        for round in 0..<60 {
            let path = round.isMultiple(of: 2) ? "/video.mjpg" : "/events"
            let connection = try TestConnection(port: server.port)
            try connection.request("GET", path)
            if round % 3 != 2 { // two in three wait for the stream to begin, the rest leave at once
                #expect(await connection.read { _ in connection.hasHead }, "\(path) answers")
                peakVideo = max(peakVideo, video.viewerCount)
                peakEvents = max(peakEvents, events.subscriberCount)
                if round % 5 == 0 {
                    video.publish { VideoFanoutTests.frame(round) }
                    events.publish(event: "state", data: "{\"round\":\(round)}")
                }
            }
            connection.close()
        }
        #expect(peakVideo >= 1 && peakEvents >= 1, "the streams were subscribed while connected")
        #expect(await eventually { video.viewerCount == 0 && events.subscriberCount == 0 },
                "left: \(video.viewerCount) viewers, \(events.subscriberCount) event subscribers")
    }

    @Test func aSubscriberGetsTheLatestStateAtOnceThenEveryChange() async throws {
        let events = EventFanout()
        let server = try await PreviewServer(host: "127.0.0.1", port: 0,
                                             routes: PreviewRoutes(video: VideoFanout(), events: events) { .started })
        defer { Task { await server.stop() } }
        events.publish(event: "state", data: "{\"n\":1}")
        let connection = try TestConnection(port: server.port)
        try connection.request("GET", "/events")
        #expect(await connection.read { _ in connection.count("data: {\"n\":1}\n\n") == 1 })
        #expect(connection.count("Content-Type: text/event-stream") == 1)
        events.publish(event: "state", data: "{\"n\":2}")
        #expect(await connection.read { _ in connection.count("event: state\ndata: {\"n\":2}\n\n") == 1 })
    }
}
