/* libFuzzer target: arbitrary bytes as a Y4M or MJPEG file, read to the end,
 * every frame run through the per-frame path (MJPEG frames are decoded). Any
 * crash, hang, leak or sanitizer report is a bug; error codes are fine. */
#include <stddef.h>
#include <stdint.h>

#include "ccore/error.h"
#include "ccore/processor.h"
#include "ccore/videofile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ccore_videofile *file = NULL;
    if (ccore_videofile_open_memory(data, size, 30, &file, NULL, 0) != 0) return 0;
    ccore_videofile_info info;
    ccore_videofile_get_info(file, &info);
    ccore_processor_config config = {
        .pixel_format = info.pixel_format,
        .is_mjpeg = info.kind == CCORE_VIDEOFILE_MJPEG,
        .width = info.width,
        .height = info.height,
        .frame_interval_ns = 33333333,
        .thumbnail_width = 32,
        .thumbnail_height = 24,
        .thumbnail_every = 1,
    };
    ccore_processor *proc = NULL;
    /* Large declared sizes are legal headers; their parsing and size checks are fuzzed, while
     * the per-frame path runs on frames up to 512x512 pixels (odd and 1-pixel sizes included,
     * from the seeds) so each run stays fast. */
    int process = (uint64_t)info.width * info.height <= 1u << 18 && ccore_processor_create(&config, &proc) == 0;
    if (process) {
        ccore_roi_set rois = {.count = 2, .generation = 1, .skin = ccore_skin_bounds_default()};
        rois.rects[0] = (ccore_rect){0.1f, 0.1f, 0.3f, 0.2f};
        rois.rects[1] = (ccore_rect){0.5f, 0.5f, 0.6f, 0.6f};
        ccore_processor_set_rois(proc, &rois);
    }
    ccore_videofile_frame frame;
    for (int n = 0; n < 64 && ccore_videofile_next(file, &frame) == 0; n++) {
        if (!process) continue;
        ccore_frame f = {.sequence = frame.index, .timestamp_ns = (int64_t)frame.index * 33333333,
                         .image = frame.image, .jpeg = frame.jpeg, .jpeg_size = frame.jpeg_size};
        ccore_frame_sample sample;
        ccore_processor_process(proc, &f, &sample);
    }
    ccore_processor_destroy(proc);
    ccore_videofile_close(file);
    return 0;
}
