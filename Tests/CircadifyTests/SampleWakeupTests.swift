@testable import Circadify
import Foundation
import Glibc
import Testing

/// The consumer's wake-up: a thread of its own polls the core's sample fd (a pipe
/// stands in for the eventfd here) and ends, closing what it opened, with its owner.
@Suite struct SampleWakeupTests {
    /// A pipe: (read end, write end).
    private func makePipe() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    private func signal(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    @Test func aSignalOnTheDescriptorWakesTheWaitingConsumer() async throws {
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd); close(writeEnd) }
        let wakeup = SampleWakeup(fd: readEnd)
        let woken = Task { await wakeup.wait(); return true }
        try await Task.sleep(for: .milliseconds(50))
        signal(writeEnd)
        #expect(await woken.value)
    }

    @Test func aSignalBeforeTheWaitIsKeptForIt() async throws {
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd); close(writeEnd) }
        let wakeup = SampleWakeup(fd: readEnd)
        signal(writeEnd)
        try await Task.sleep(for: .milliseconds(50)) // the thread passes it on with nobody waiting
        await wakeup.wait() // returns at once: hangs (and the suite times out) if the signal was lost
    }

    @Test func aCancelledWaitReturns() async throws {
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd); close(writeEnd) }
        let wakeup = SampleWakeup(fd: readEnd)
        let waiting = Task { await wakeup.wait() }
        waiting.cancel()
        await waiting.value
    }

    /// Each wake-up duplicates the fd and opens a pipe; its thread closes them once the
    /// wake-up is gone. A hundred of them must leave no descriptor behind.
    @Test func theThreadEndsAndClosesItsDescriptorsWithItsOwner() async throws {
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd); close(writeEnd) }
        let before = openDescriptorCount()
        for _ in 0..<100 {
            let wakeup = SampleWakeup(fd: readEnd)
            _ = wakeup
        }
        var after = openDescriptorCount()
        for _ in 0..<100 where after >= before + 50 { // the threads close theirs as they end
            try await Task.sleep(for: .milliseconds(20))
            after = openDescriptorCount()
        }
        // Other suites open and close files, pipes and sockets meanwhile, so the process's
        // total wobbles by tens; a leak would be 300 (a duplicate and a pipe's two ends each).
        #expect(after < before + 50, "descriptors before \(before), after \(after)")
    }

    /// A descriptor that can only report an error (a pipe's write end with its reader
    /// gone) ends the thread; the consumer then naps instead of waiting for ever.
    @Test func aBrokenDescriptorLeavesTheConsumerNappingNotStuck() async throws {
        let (readEnd, writeEnd) = try makePipe()
        close(readEnd)
        defer { close(writeEnd) }
        let wakeup = SampleWakeup(fd: writeEnd)
        let returned = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for _ in 0..<3 { await wakeup.wait() }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(returned, "wait() was still blocked 20 s after the thread ended")
    }
}
