/* Face detection with OpenCV's trained boosted cascades (the XML data files
 * of Debian's opencv-data package; no OpenCV code is linked).
 *
 * Two parts: a cascade, parsed once from an XML file and immutable after
 * that (share it between threads freely), and a detector that owns every
 * scratch buffer (image pyramid level, integral images, candidate list) so
 * that detecting allocates nothing. One thread uses a detector at a time.
 *
 * Detection follows the usual multi-scale sliding-window scheme: the image
 * is shrunk by the scale factor step by step, the cascade's fixed-size window
 * slides over each level, and the raw hits are clustered (rectangles whose
 * sides lie within 20% of each other form one face; a face needs more than
 * `min_neighbours` hits). Boxes come back in input pixels, largest first. */
#ifndef CCORE_CASCADE_H
#define CCORE_CASCADE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccore_cascade ccore_cascade;

typedef enum {
    CCORE_CASCADE_LBP = 1,  /* multi-block local binary patterns */
    CCORE_CASCADE_HAAR = 2, /* Haar-like rectangle features (upright only) */
} ccore_cascade_features;

/** Reads an OpenCV cascade file (the `<cascade>` format of OpenCV 2.4+,
 *  boosted stumps over LBP or upright Haar features). A missing file is
 *  -ENOENT (the message says to install opencv-data); malformed or truncated
 *  XML, or values that do not add up, CCORE_E_CORRUPT; a valid file using
 *  something this reader does not evaluate (trees deeper than one split,
 *  tilted Haar features, the pre-2.4 format), CCORE_E_UNSUPPORTED. The
 *  message names the problem (and the line, for XML errors). */
int ccore_cascade_load(const char *path, ccore_cascade **out, char *message, uint32_t message_size);
void ccore_cascade_destroy(ccore_cascade *cascade);

ccore_cascade_features ccore_cascade_feature_type(const ccore_cascade *cascade);
/** The trained window: the smallest face the cascade can find, in pixels. */
uint32_t ccore_cascade_window_width(const ccore_cascade *cascade);
uint32_t ccore_cascade_window_height(const ccore_cascade *cascade);
uint32_t ccore_cascade_stage_count(const ccore_cascade *cascade);

typedef struct {
    /** Pyramid step, > 1 (default 1.1: finer finds more, costs more). */
    double scale_factor;
    /** A face needs more than this many raw hits (default 3); 0 returns every raw hit unclustered. */
    uint32_t min_neighbours;
    /** Smallest / largest face side in pixels to look for; 0 = no limit
     *  (the smallest is then the cascade's window). */
    uint32_t min_face_size;
    uint32_t max_face_size;
    /** Search only windows inside this area (input pixels; roi_width and
     *  roi_height 0 = the whole image). Windows are placed on the same grid as
     *  a whole-image search, so the area finds what that search finds there. */
    uint32_t roi_x, roi_y, roi_width, roi_height;
} ccore_face_params;

/** Fills the defaults above. */
void ccore_face_params_default(ccore_face_params *params);

typedef struct {
    int32_t x, y, width, height; /* pixels of the input image */
    int32_t neighbours;          /* raw hits merged into this face */
} ccore_face;

typedef struct ccore_face_detector ccore_face_detector;

/** A detector for images up to max_width x max_height using `cascade`,
 *  which must outlive it. All scratch memory is allocated here. */
int ccore_face_detector_create(const ccore_cascade *cascade, uint32_t max_width, uint32_t max_height,
                               ccore_face_detector **out);
void ccore_face_detector_destroy(ccore_face_detector *detector);

/** Finds faces in an 8-bit luma plane. Writes up to `max_out` faces, largest
 *  first, and their number to `*count`. Allocates nothing: raw window hits
 *  beyond 8192 per call (far more than any real frame gives) are dropped,
 *  those for the largest face sizes, scanned last, first. An image larger
 *  than the detector's maximum -> -E2BIG; bad parameters -> -EINVAL (see the
 *  error message). */
int ccore_face_detector_detect(ccore_face_detector *detector, const uint8_t *luma, uint32_t width, uint32_t height,
                               uint32_t stride, const ccore_face_params *params, ccore_face *out, uint32_t max_out,
                               uint32_t *count);

const char *ccore_face_detector_error_message(const ccore_face_detector *detector);

#ifdef __cplusplus
}
#endif
#endif
