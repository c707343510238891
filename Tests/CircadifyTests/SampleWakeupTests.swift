@testable import Circadify
import Foundation
import Glibc
import Testing

/// The consumer's wake-up: a thread of its own polls the core's sample fd (a pipe
/// stands in for the eventfd here) and ends, closing what it opened, with its owner.
// A lost wake-up shows as a wait that never returns: the time limit makes it a failure.
@Suite(.timeLimit(.minutes(1))) struct SampleWakeupTests {
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
        try await Task.sleep(for: .milliseconds(50)) // waiting by now: the cancel must wake it
        waiting.cancel()
        await waiting.value
    }

    /// Each wake-up duplicates the fd (and opens a pipe of its own); its thread closes
    /// them once the wake-up is gone. Counted by the test pipe's own inode, which other
    /// suites running meanwhile cannot touch: its two ends, and no duplicate left.
    @Test func theThreadEndsAndClosesItsDescriptorsWithItsOwner() async throws {
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd); close(writeEnd) }
        let pipeLink = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(readEnd)")
        #expect(openDescriptorCount(to: pipeLink) == 2)
        var wakeups = (0..<20).map { _ in SampleWakeup(fd: readEnd) }
        #expect(openDescriptorCount(to: pipeLink) == 22, "each wake-up holds a duplicate while it lives")
        wakeups.removeAll()
        var after = openDescriptorCount(to: pipeLink)
        for _ in 0..<250 where after > 2 { // the threads close theirs as they end
            try await Task.sleep(for: .milliseconds(20))
            after = openDescriptorCount(to: pipeLink)
        }
        #expect(after == 2, "\(after - 2) duplicates still open")
    }

    /// A descriptor that can only report an error (a pipe's write end with its reader
    /// gone) ends the thread; the consumer then naps instead of waiting for ever.
    @Test func aBrokenDescriptorLeavesTheConsumerNappingNotStuck() async throws {
        let (readEnd, writeEnd) = try makePipe()
        close(readEnd)
        defer { close(writeEnd) }
        let wakeup = SampleWakeup(fd: writeEnd)
        let returned = await result(within: 20) {
            for _ in 0..<3 { await wakeup.wait() }
            return true
        }
        #expect(returned == true, "wait() was still blocked 20 s after the thread ended")
    }
}
