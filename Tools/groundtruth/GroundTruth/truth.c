/* The truth file: JSON written by hand (the keys are a contract with the
 * accuracy benchmark and the tests; see Tools/groundtruth/README.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_internal.h"

/* A JSON number with `decimals` places, or null. Formatted by hand around
 * snprintf's digits so a comma-decimal locale cannot break the JSON. */
static void num(FILE *f, double v, int decimals) {
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    for (char *p = buf; *p; p++)
        if (*p == ',') *p = '.';
    if (strcmp(buf, "-0") == 0 || (strncmp(buf, "-0.", 3) == 0 && strspn(buf + 3, "0") == strlen(buf + 3)))
        memmove(buf, buf + 1, strlen(buf)); /* no "-0.000" */
    fputs(buf, f);
}

static void box(FILE *f, gt_box b) {
    fputc('[', f);
    num(f, b.x, 5), fputc(',', f), num(f, b.y, 5), fputc(',', f), num(f, b.w, 5), fputc(',', f), num(f, b.h, 5);
    fputc(']', f);
}

/* Beats inside the clip [0, duration]: first index and count. */
static void beats_inside(const gt_clip *c, size_t *first, size_t *count) {
    *first = 0, *count = 0;
    for (size_t i = 0; i < c->beat_count; i++)
        if (c->beats[i] >= 0 && c->beats[i] <= c->duration) {
            if (*count == 0) *first = i;
            (*count)++;
        }
}

int gt_truth_write(const gt_clip *c, const char *path, const char *name, char *msg, size_t msg_size) {
    FILE *f = fopen(path, "w");
    if (!f) {
        int err = errno;
        gt_set_msg(msg, msg_size, "cannot write %s: %s", name, strerror(err));
        return -err;
    }
    const int pulse = c->sc->pulse;
    size_t first = 0, nb = 0;
    if (pulse) beats_inside(c, &first, &nb);
    const double *bt = c->beats + first;
    /* Rounded beat times are what the file says; statistics come from them,
     * so a reader recomputing them from beatTimes gets the same numbers. */
    double *rt = malloc((nb ? nb : 1) * sizeof *rt);
    if (!rt) {
        fclose(f);
        return -ENOMEM;
    }
    for (size_t i = 0; i < nb; i++) rt[i] = round(bt[i] * 1e4) / 1e4;
    double mean_ibi = NAN, sdnn = NAN, rmssd = NAN;
    if (nb >= 2) mean_ibi = (rt[nb - 1] - rt[0]) / (double)(nb - 1);
    if (nb >= 3) {
        double ss = 0, sd = 0;
        for (size_t i = 1; i < nb; i++) {
            double ibi = rt[i] - rt[i - 1];
            ss += (ibi - mean_ibi) * (ibi - mean_ibi);
            if (i >= 2) {
                double d = ibi - (rt[i - 1] - rt[i - 2]);
                sd += d * d;
            }
        }
        sdnn = 1000 * sqrt(ss / (double)(nb - 2));    /* sample SD of the nb-1 intervals */
        rmssd = 1000 * sqrt(sd / (double)(nb - 2));   /* over the nb-2 successive differences */
    }

    fprintf(f, "{\n  \"generator\": \"circadify-groundtruth 1\",\n  \"scenario\": \"%s\",\n  \"seed\": %u,\n",
            c->sc->name, c->opt.seed);
    fprintf(f, "  \"width\": %u,\n  \"height\": %u,\n  \"fps\": ", c->opt.width, c->opt.height);
    num(f, c->opt.fps, 3);
    fprintf(f, ",\n  \"frameCount\": %u,\n  \"writtenFrameCount\": %u,\n  \"durationSeconds\": ", c->frame_count,
            c->written_count);
    num(f, c->duration, 3);
    fprintf(f, ",\n  \"format\": \"%s\",\n", c->opt.format == GT_FORMAT_MJPEG ? "mjpeg" : "y4m");
    fprintf(f, "  \"jpegQuality\": ");
    if (c->opt.format == GT_FORMAT_MJPEG || c->jpeg_artefacts) fprintf(f, "%d", c->opt.jpeg_quality);
    else fputs("null", f);
    fputs(",\n  \"restartInterval\": ", f);
    if (c->opt.format == GT_FORMAT_MJPEG) fprintf(f, "%u", c->opt.restart_interval);
    else fputs("null", f);
    fputs(",\n  \"noiseSigma\": ", f);
    num(f, c->opt.noise_sigma, 2);
    fputs(",\n  \"pulseAmplitude\": ", f);
    num(f, pulse ? c->opt.pulse_amplitude : 0, 5);
    /* Who the seed made of the portrait (variety), so results can be broken down by it. */
    fprintf(f, ",\n  \"person\": {\"fitzpatrick\": %d, \"faceWidth\": ", c->look.fitzpatrick);
    num(f, c->look.face_width, 3);
    fprintf(f, ", \"glasses\": %s, \"beard\": ", c->look.glasses ? "true" : "false");
    num(f, c->look.beard, 2);
    fprintf(f, ", \"variety\": %s}", c->opt.variety ? "true" : "false");
    fprintf(f, ",\n  \"pulsePresent\": %s,\n  \"beatTimes\": [", pulse ? "true" : "false");
    for (size_t i = 0; i < nb; i++) {
        if (i) fputs(", ", f);
        num(f, rt[i], 4);
    }
    fputs("],\n  \"heartRate\": [", f);
    if (pulse) {
        /* Instantaneous rate of the beat interval around each whole second. */
        size_t k = 0;
        int n = 0;
        for (double t = 0; t <= c->duration + 1e-9; t += 1.0) {
            while (k + 2 < c->beat_count && c->beats[k + 1] <= t) k++;
            fprintf(f, "%s{\"t\": ", n++ ? ", " : "");
            num(f, t, 1);
            fputs(", \"bpm\": ", f);
            num(f, 60 / (c->beats[k + 1] - c->beats[k]), 2);
            fputc('}', f);
        }
    }
    fputs("],\n  \"meanHeartRate\": ", f);
    num(f, 60 / mean_ibi, 3);
    fputs(",\n  \"respiratoryRate\": ", f);
    num(f, c->respiratory_rate, 3);
    fputs(",\n  \"sdnn\": ", f);
    num(f, sdnn, 2);
    fputs(",\n  \"rmssd\": ", f);
    num(f, rmssd, 2);
    fputs(",\n  \"droppedFrames\": [", f);
    int n = 0;
    for (uint32_t i = 0; i < c->frame_count; i++)
        if (c->frames[i].dropped) fprintf(f, "%s%u", n++ ? ", " : "", i);
    fputs("],\n  \"frameTimes\": ", f);
    if (c->written_count == c->frame_count) {
        fputs("null", f);
    } else {
        fputc('[', f);
        n = 0;
        for (uint32_t i = 0; i < c->frame_count; i++)
            if (!c->frames[i].dropped) {
                if (n++) fputs(", ", f);
                num(f, c->frames[i].t, 5);
            }
        fputc(']', f);
    }
    fputs(",\n  \"regionNames\": [\"forehead\", \"leftCheek\", \"rightCheek\"],\n  \"regions\": [", f);
    n = 0;
    for (uint32_t i = 0; i < c->frame_count; i++) {
        if (c->frames[i].dropped || c->no_face) continue;
        fputs(n++ ? ",\n    [" : "\n    [", f);
        for (int r = 0; r < GT_ROI_COUNT; r++) {
            if (r) fputc(',', f);
            box(f, gt_clip_region(c, &c->frames[i], gt_face_roi_source(r)));
        }
        fputc(']', f);
    }
    fputs(n ? "\n  ],\n  \"face\": [" : "],\n  \"face\": [", f);
    n = 0;
    for (uint32_t i = 0; i < c->frame_count; i++) {
        if (c->frames[i].dropped || c->no_face) continue;
        fputs(n++ ? ",\n    " : "\n    ", f);
        box(f, gt_clip_region(c, &c->frames[i], gt_face_box_source()));
    }
    fputs(n ? "\n  ],\n  \"secondFace\": " : "],\n  \"secondFace\": ", f);
    if (!c->second_face) {
        fputs("null", f);
    } else {
        fputc('[', f);
        n = 0;
        for (uint32_t i = 0; i < c->frame_count; i++) {
            if (c->frames[i].dropped) continue;
            fputs(n++ ? ",\n    " : "\n    ", f);
            box(f, gt_clip_second_region(c, &c->frames[i], gt_face_box_source()));
        }
        fputs("\n  ]", f);
    }
    /* The quality warnings the clip should raise, as QualityWarning.Kind names. */
    fputs(",\n  \"expectedWarnings\": [", f);
    const char *list = c->sc->warnings ? c->sc->warnings : "";
    for (int first = 1; *list; first = 0) {
        size_t len = strcspn(list, ",");
        fprintf(f, "%s\"%.*s\"", first ? "" : ", ", (int)len, list);
        list += len + (list[len] == ',');
    }
    fputs("]\n}\n", f);
    free(rt);
    int werr = ferror(f);
    if (fclose(f) != 0 || werr) {
        gt_set_msg(msg, msg_size, "writing %s failed", name);
        return -EIO;
    }
    return 0;
}
