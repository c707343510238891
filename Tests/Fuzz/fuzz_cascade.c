/* libFuzzer target: arbitrary bytes as an OpenCV cascade XML file. A file the
 * loader accepts is then run on a small textured image, so a cascade that is
 * valid but odd (tiny window, features on its edge) is exercised too. Any
 * crash, hang, leak or sanitizer report is a bug; error codes are fine. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ccore/cascade.h"

enum { W = 64, H = 48 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* The loader reads a path: hand it an in-memory file. */
    int fd = memfd_create("cascade", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ccore_cascade *cascade = NULL;
    char message[256];
    int rc = ccore_cascade_load(path, &cascade, message, sizeof message);
    close(fd);
    if (rc != 0) return 0;
    static uint8_t image[W * H];
    for (int i = 0; i < W * H; i++) image[i] = (uint8_t)((i * 37) ^ (i / W * 11));
    ccore_face_detector *detector = NULL;
    if (ccore_face_detector_create(cascade, W, H, &detector) == 0) {
        ccore_face_params params;
        ccore_face_params_default(&params);
        ccore_face faces[8];
        uint32_t count;
        ccore_face_detector_detect(detector, image, W, H, W, &params, faces, 8, &count);
        params.min_neighbours = 0;
        ccore_face_detector_detect(detector, image, W, H, W, &params, faces, 8, &count);
        ccore_face_detector_destroy(detector);
    }
    ccore_cascade_destroy(cascade);
    return 0;
}
