import CCore
import Foundation
import Testing

/// Contracts every public C call keeps: NULL handles are handled alike (error.h), and the
/// device access reason is never cut short, however long the path.
@Suite struct ApiContractTests {
    @Test func nullHandlesAreHandledAlike() {
        // Codes: -EINVAL.
        #expect(ccore_source_start(nil) == -EINVAL)
        #expect(ccore_source_stop(nil) == -EINVAL)
        #expect(ccore_source_set_rois(nil, nil) == -EINVAL)
        #expect(ccore_source_take_thumbnail(nil, nil, 0, nil, nil, nil) == -EINVAL)
        #expect(ccore_processor_process(nil, nil, nil) == -EINVAL)
        #expect(ccore_processor_set_rois(nil, nil) == -EINVAL)
        #expect(ccore_videofile_next(nil, nil) == -EINVAL)
        #expect(ccore_videofile_rewind(nil) == -EINVAL)
        #expect(ccore_spectrum_welch(nil, nil, 0, nil, 0) == -EINVAL)
        #expect(ccore_jpeg_decode(nil, nil, 0, 1, nil) == -EINVAL)
        #expect(ccore_roi_measure(nil, nil, nil) == -EINVAL)
        // A JPEG's size asked for with nowhere to put it.
        var decoder: OpaquePointer?
        #expect(ccore_jpeg_create(64, 64, &decoder) == 0)
        let header: [UInt8] = [0xFF, 0xD8, 0xFF]
        var width: UInt32 = 0
        #expect(ccore_jpeg_peek_size(decoder, header, header.count, &width, nil) == -EINVAL)
        #expect(ccore_jpeg_peek_size(decoder, header, header.count, nil, &width) == -EINVAL)
        ccore_jpeg_destroy(decoder)
        // Getters clear their output; a NULL source reads as failed.
        var format = ccore_stream_format()
        format.width = 99
        ccore_source_get_format(nil, &format)
        #expect(format.width == 0 && format.fourcc == 0)
        ccore_source_get_format(nil, nil)
        var stats = ccore_source_stats()
        stats.frames = 5
        ccore_source_get_stats(nil, &stats)
        #expect(stats.frames == 0 && stats.state == CCORE_SOURCE_FAILED && stats.error == -EINVAL)
        var counters = ccore_processor_counters()
        counters.frames = 5
        ccore_processor_get_counters(nil, &counters)
        #expect(counters.frames == 0)
        var info = ccore_videofile_info()
        info.width = 7
        ccore_videofile_get_info(nil, &info)
        #expect(info.width == 0)
        // Counts and sizes 0, predicates false, pointers NULL, messages "".
        #expect(ccore_ring_capacity(nil) == 0 && ccore_ring_count(nil) == 0 && ccore_ring_overflows(nil) == 0)
        #expect(ccore_ring_record_size(nil) == 0 && ccore_ring_pop_many(nil, nil, 4) == 0)
        #expect(!ccore_ring_push(nil, nil) && !ccore_ring_pop(nil, nil))
        #expect(ccore_mailbox_slot_size(nil) == 0 && ccore_mailbox_write_slot(nil) == nil)
        #expect(!ccore_mailbox_refresh(nil) && ccore_mailbox_read_slot(nil) == nil)
        ccore_mailbox_publish(nil)
        #expect(ccore_spectrum_bin_count(nil) == 0 && ccore_spectrum_bin_hz(nil).isNaN)
        #expect(ccore_source_ring(nil) == nil && ccore_source_fd(nil) == -1)
        #expect(String(cString: ccore_source_error_message(nil)).isEmpty)
        #expect(String(cString: ccore_videofile_error_message(nil)).isEmpty)
        #expect(String(cString: ccore_processor_error_message(nil)).isEmpty)
        ccore_source_config_init(nil)
        ccore_processor_sample_lost(nil, nil)
        ccore_source_destroy(nil)
        ccore_videofile_close(nil)
    }

    /// The whole path and the whole advice, for paths up to CCORE_DEVICE_PATH_MAX bytes.
    @Test func accessReasonsAreNeverCutShort() {
        #expect(MemoryLayout.size(ofValue: ccore_access().reason) == Int(CCORE_ACCESS_REASON_SIZE))
        // Folders of 49 bytes plus a slash (each name under the kernel's 255), then a file name.
        let folders = String(repeating: String(repeating: "v", count: 49) + "/", count: 9)
        let prefix = "/tmp/ccore-missing/" + folders
        let longest = prefix + String(repeating: "f", count: Int(CCORE_DEVICE_PATH_MAX) - prefix.utf8.count)
        #expect(longest.utf8.count == Int(CCORE_DEVICE_PATH_MAX))
        var a = ccore_device_access(longest)
        var reason = withUnsafeBytes(of: &a.reason) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        #expect(a.status == CCORE_ACCESS_NOT_DETERMINED && a.error == ENOENT)
        #expect(reason.contains(longest) && reason.hasSuffix("(camera unplugged or driver not loaded)"), "\(reason)")
        // One byte more is refused by length, with a reason that says so.
        a = ccore_device_access(longest + "v")
        reason = withUnsafeBytes(of: &a.reason) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        #expect(a.status == CCORE_ACCESS_NOT_DETERMINED && a.error == ENAMETOOLONG)
        #expect(reason.contains("\(Int(CCORE_DEVICE_PATH_MAX) + 1) bytes"), "\(reason)")
    }
}
