@testable import Circadify
import CCore
import CCoreTestSupport
import Foundation
import Testing

/// The Swift wrapper over the core: samples arrive as an async stream that
/// ends with the file and throws when the source fails.
@Suite struct FrameSourceTests {
    static func clip(frames: Int, width: Int = 64, height: Int = 48) -> [UInt8] {
        Y4M.file(width: width, height: height, frames: (0..<frames).map { i in
            Y4M.flatFrame420(width: width, height: height, y: UInt8(90 + i % 40), cb: 110, cr: 150)
        })
    }

    static var fast: FrameSourceConfiguration {
        var c = FrameSourceConfiguration()
        c.realtime = false
        return c
    }

    @Test func streamsEveryFrameOfAFileThenEnds() async throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.clip(frames: 90))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: Self.fast)
        #expect(source.format == StreamFormat(fourcc: "YUV420", width: 64, height: 48, framesPerSecond: 30,
                                              bufferCount: 0))
        try await source.setRegions(RegionSet(rects: [NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)],
                                              skin: .everything, generation: 3))
        var samples = [FrameSample]()
        for try await sample in try await source.samples() { samples.append(sample) }
        #expect(samples.map(\.sequence) == (0..<90).map(UInt64.init))
        #expect(samples.allSatisfy { $0.regions.count == 1 && $0.regionGeneration == 3 })
        #expect(samples[5].regions[0].skinFraction == 1)
        #expect(abs(samples[5].meanLuma - 95) < 0.01, "flat frame 5 has luma 95")
        let stats = await source.statistics()
        #expect(stats.state == .finished && stats.frames == 90 && stats.samples == 90 && stats.ringOverflows == 0)
    }

    @Test func truncatedFileThrowsAfterTheGoodFrames() async throws {
        let file = try TemporaryFile(named: "cut.y4m", contents: Array(Self.clip(frames: 20).dropLast(7)))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: Self.fast)
        var count = 0
        do {
            for try await _ in try await source.samples() { count += 1 }
            Issue.record("a truncated file must not end quietly")
        } catch let error as CoreError {
            #expect(error.code == CoreError.truncated)
            #expect(error.message.contains("frame 19 is truncated"))
        }
        #expect(count == 19)
    }

    @Test func openErrorsCarryCodeAndMessage() async {
        #expect(throws: CoreError.self) { try FrameSource(.file("/nonexistent/x.y4m")) }
        do {
            _ = try FrameSource(.device("/dev/null"))
            Issue.record("/dev/null is no camera")
        } catch {
            #expect(error.code == CoreError.notCapture)
            #expect(error.name == "CCORE_E_NOT_CAPTURE")
            #expect(error.description.contains("/dev/null is not a video capture device"))
        }
        let empty = try? TemporaryFile(named: "empty.y4m", contents: [])
        defer { empty?.cleanUp() }
        do {
            _ = try FrameSource(.file(empty?.path ?? ""))
            Issue.record("an empty file has no frames")
        } catch {
            #expect(error.code == CoreError.truncated)
        }
    }

    @Test func startsOnlyOnce() async throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.clip(frames: 3))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: Self.fast)
        _ = try await source.samples()
        await #expect(throws: CoreError.self) { try await source.samples() }
        await source.stop()
    }

    @Test func tooManyRegionsAreRefused() async throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.clip(frames: 3))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: Self.fast)
        let nine = RegionSet(rects: Array(repeating: NormalizedRect(x: 0, y: 0, width: 0.1, height: 0.1), count: 9))
        await #expect(throws: CoreError.self) { try await source.setRegions(nine) }
        let empty = RegionSet(rects: [NormalizedRect(x: 0, y: 0, width: 0, height: 0.1)])
        await #expect(throws: CoreError.self) { try await source.setRegions(empty) }
    }

    /// Cancelling the consuming task ends the stream and lets the source stop
    /// promptly, even in a realtime replay that would take 30 s. The consumer
    /// cancels itself after a few samples, so the test does not depend on how
    /// soon a busy machine wakes a sleeping task.
    @Test func cancellingTheConsumerStopsTheReplay() async throws {
        let file = try TemporaryFile(named: "long.y4m", contents: Self.clip(frames: 900))
        defer { file.cleanUp() }
        // Paced by its consumer (the ring's back-pressure), not by the clock: a test pool
        // busy with other suites for 30 s must not let the replay reach its end first.
        let source = try FrameSource(.file(file.path), configuration: Self.fast)
        let stream = try await source.samples()
        let consumer = Task {
            var n = 0
            for try await _ in stream {
                n += 1
                if n == 5 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return n
        }
        let received = try await consumer.value
        let started = ContinuousClock.now
        await source.stop()
        // A stop that waited for the replay would take 30 s or hang; 5 s leaves room for a busy pool.
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(received >= 5 && received < 900)
        #expect(await source.statistics().state == .stopped)
    }

    /// The capture thread and the thread that wakes the consumer carry names, so that
    /// `top -H`, `perf` and /proc tell them from the runtime's pool threads. Linux
    /// refuses a name of more than 15 characters, and the thread then keeps its
    /// creator's. Looked for while samples flow (a thread names itself once it runs).
    @Test func theSourcesThreadsCarryTheirNames() async throws {
        let file = try TemporaryFile(named: "named.y4m", contents: Self.clip(frames: 300))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: Self.fast)
        var names = Set<String>()
        for try await _ in try await source.samples() {
            names = Self.threadNames()
            if names.isSuperset(of: ["ccore-capture", "circadify-wake"]) { break }
        }
        await source.stop()
        #expect(names.contains("ccore-capture"), "threads: \(names.sorted())")
        #expect(names.contains("circadify-wake"), "threads: \(names.sorted())")
    }

    /// The names of this process's threads, from /proc.
    static func threadNames() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        })
    }

    @Test func thumbnailsReachTheReader() async throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.clip(frames: 6, width: 320, height: 240))
        defer { file.cleanUp() }
        let source = try FrameSource(.file(file.path), configuration: Self.fast)
        for try await _ in try await source.samples() {}
        let thumb = try #require(await source.takeThumbnail())
        #expect(thumb.width == 160 && thumb.height == 120 && thumb.pixels.count == 160 * 120)
        #expect(thumb.sequence == 3, "every 3rd frame: 0 and 3")
        #expect(thumb.pixels.allSatisfy { $0 == 93 }, "frame 3 is flat luma 93")
        #expect(await source.takeThumbnail() == nil)
    }

    @Test func listingCamerasWorksWithoutAny() throws {
        let devices = try CameraDevice.list()
        #expect(devices.allSatisfy { $0.path.hasPrefix("/dev/video") })
        let (status, reason) = CameraDevice.access(path: "/dev/video-absent")
        #expect(status == .notDetermined)
        #expect(reason.contains("no device node"))
    }
}
