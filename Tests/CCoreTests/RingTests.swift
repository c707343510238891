import CCore
import Foundation
import Testing

/// The ring's pointer, handed to the two threads of a stress test.
private struct RingRef: @unchecked Sendable { let raw: OpaquePointer }

/// A record that carries its own check value, so a torn copy is detected.
private struct Record { var sequence: UInt64; var check: UInt64 }

@Suite struct RingTests {
    @Test func capacityIsRoundedUpToAPowerOfTwo() throws {
        var ring: OpaquePointer?
        #expect(ccore_ring_create(16, 100, &ring) == 0)
        defer { ccore_ring_destroy(ring) }
        #expect(ccore_ring_capacity(ring) == 128)
        #expect(ccore_ring_record_size(ring) == 16)
    }

    @Test func rejectsBadArguments() {
        var ring: OpaquePointer?
        #expect(ccore_ring_create(0, 8, &ring) == -Int32(EINVAL))
        #expect(ring == nil)
    }

    @Test func fullRingRefusesAndCountsInsteadOfOverwriting() throws {
        var raw: OpaquePointer?
        #expect(ccore_ring_create(MemoryLayout<Record>.stride, 4, &raw) == 0)
        let ring = try #require(raw)
        defer { ccore_ring_destroy(ring) }
        for i in 0..<4 {
            var r = Record(sequence: UInt64(i), check: ~UInt64(i))
            #expect(ccore_ring_push(ring, &r))
        }
        var extra = Record(sequence: 99, check: ~99)
        #expect(!ccore_ring_push(ring, &extra))
        #expect(!ccore_ring_push(ring, &extra))
        #expect(ccore_ring_overflows(ring) == 2)
        #expect(ccore_ring_count(ring) == 4)
        var out = Record(sequence: 0, check: 0)
        for i in 0..<4 {
            #expect(ccore_ring_pop(ring, &out))
            #expect(out.sequence == UInt64(i), "the oldest records survive an overflow")
        }
        #expect(!ccore_ring_pop(ring, &out))
    }

    @Test func popManyTakesWhatIsThere() throws {
        var raw: OpaquePointer?
        #expect(ccore_ring_create(MemoryLayout<Record>.stride, 8, &raw) == 0)
        let ring = try #require(raw)
        defer { ccore_ring_destroy(ring) }
        for i in 0..<5 {
            var r = Record(sequence: UInt64(i), check: ~UInt64(i))
            #expect(ccore_ring_push(ring, &r))
        }
        var out = [Record](repeating: Record(sequence: 0, check: 0), count: 8)
        #expect(ccore_ring_pop_many(ring, &out, 8) == 5)
        #expect(out.prefix(5).map(\.sequence) == [0, 1, 2, 3, 4])
    }

    /// Two threads, millions of records through a small ring: every record
    /// arrives once, in order, intact; refused pushes equal the overflow count.
    @Test func twoThreadStressKeepsEveryRecordInOrder() async throws {
        let total: UInt64 = 3_000_000
        var raw: OpaquePointer?
        #expect(ccore_ring_create(MemoryLayout<Record>.stride, 64, &raw) == 0)
        let ring = RingRef(raw: try #require(raw))
        defer { ccore_ring_destroy(ring.raw) }

        let producer = Task.detached { () -> UInt64 in
            var refused: UInt64 = 0
            var i: UInt64 = 0
            while i < total {
                var r = Record(sequence: i, check: i &* 0x9E37_79B9_7F4A_7C15)
                if ccore_ring_push(ring.raw, &r) { i += 1 } else { refused += 1 }
            }
            return refused
        }
        let consumer = Task.detached { () -> (UInt64, UInt64, UInt64) in
            var expected: UInt64 = 0, outOfOrder: UInt64 = 0, torn: UInt64 = 0
            var r = Record(sequence: 0, check: 0)
            while expected < total {
                guard ccore_ring_pop(ring.raw, &r) else { continue }
                if r.sequence != expected { outOfOrder += 1 }
                if r.check != r.sequence &* 0x9E37_79B9_7F4A_7C15 { torn += 1 }
                expected = r.sequence + 1
            }
            return (expected, outOfOrder, torn)
        }
        let refused = await producer.value
        let (received, outOfOrder, torn) = await consumer.value
        #expect(received == total)
        #expect(outOfOrder == 0, "records lost, duplicated or reordered")
        #expect(torn == 0, "a record was read before it was fully written")
        #expect(ccore_ring_overflows(ring.raw) == refused)
        var r = Record(sequence: 0, check: 0)
        #expect(!ccore_ring_pop(ring.raw, &r), "nothing left over")
    }
}
