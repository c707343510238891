import CCore
import Foundation
import Testing

private struct MailboxRef: @unchecked Sendable { let raw: OpaquePointer }

@Suite struct MailboxTests {
    @Test func readerSeesNothingBeforeTheFirstPublish() throws {
        var raw: OpaquePointer?
        #expect(ccore_mailbox_create(8, &raw) == 0)
        let box = try #require(raw)
        defer { ccore_mailbox_destroy(box) }
        #expect(!ccore_mailbox_refresh(box))
        #expect(ccore_mailbox_read_slot(box) == nil)
    }

    /// Slots hold a header struct before their bytes: each must be aligned for it,
    /// whatever odd size was asked for (the preview's slot was not, which UBSan caught);
    /// 16 bytes is max_align_t's alignment on x86_64 and arm64 Linux.
    @Test(arguments: [1, 7, 13, 4099, 640 * 480 * 3 + 20])
    func everySlotIsAlignedForAnyType(size: Int) throws {
        var raw: OpaquePointer?
        #expect(ccore_mailbox_create(size, &raw) == 0)
        let box = try #require(raw)
        defer { ccore_mailbox_destroy(box) }
        #expect(ccore_mailbox_slot_size(box) == size)
        for _ in 0..<3 { // the writer's slot moves through all three
            let slot = try #require(ccore_mailbox_write_slot(box))
            #expect(Int(bitPattern: slot) % 16 == 0, "slot at \(slot)")
            memset(slot, 0xAB, size) // the whole slot is usable
            ccore_mailbox_publish(box)
            #expect(ccore_mailbox_refresh(box))
            let read = try #require(ccore_mailbox_read_slot(box))
            #expect(Int(bitPattern: read) % 16 == 0)
        }
    }

    @Test func latestPublishedValueWins() throws {
        var raw: OpaquePointer?
        #expect(ccore_mailbox_create(8, &raw) == 0)
        let box = try #require(raw)
        defer { ccore_mailbox_destroy(box) }
        for value in [UInt64(1), 2, 3] {
            ccore_mailbox_write_slot(box).storeBytes(of: value, as: UInt64.self)
            ccore_mailbox_publish(box)
        }
        #expect(ccore_mailbox_refresh(box))
        #expect(ccore_mailbox_read_slot(box).load(as: UInt64.self) == 3)
        #expect(!ccore_mailbox_refresh(box), "nothing new since the last take")
        #expect(ccore_mailbox_read_slot(box).load(as: UInt64.self) == 3, "the taken value stays readable")
    }

    /// A writer publishes slots filled with one counter value; the reader must
    /// never see a mix of two values, nor a value older than one it saw.
    @Test func concurrentPublishAndReadNeverTearsOrGoesBack() async throws {
        let words = 32
        var raw: OpaquePointer?
        #expect(ccore_mailbox_create(words * 8, &raw) == 0)
        let box = MailboxRef(raw: try #require(raw))
        defer { ccore_mailbox_destroy(box.raw) }
        let rounds: UInt64 = 300_000
        let writer = Task.detached {
            for v in 1...rounds {
                let slot = ccore_mailbox_write_slot(box.raw)!.bindMemory(to: UInt64.self, capacity: words)
                for i in 0..<words { slot[i] = v }
                ccore_mailbox_publish(box.raw)
            }
        }
        let reader = Task.detached { () -> (torn: Int, backwards: Int, last: UInt64) in
            var torn = 0, backwards = 0
            var last: UInt64 = 0
            while last < rounds {
                guard ccore_mailbox_refresh(box.raw) else { continue }
                let slot = ccore_mailbox_read_slot(box.raw)!.bindMemory(to: UInt64.self, capacity: words)
                let first = slot[0]
                for i in 1..<words where slot[i] != first { torn += 1 }
                if first < last { backwards += 1 }
                last = first
            }
            return (torn, backwards, last)
        }
        await writer.value
        let result = await reader.value
        #expect(result.torn == 0)
        #expect(result.backwards == 0)
        #expect(result.last == rounds)
    }
}
