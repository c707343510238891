#!/usr/bin/env python3
"""The ROI work of ccore_processor_process done "the usual way" in Python.

NumPy + OpenCV, one core, on the same frames as ccore-bench:
  YUYV  : cv2.cvtColor(COLOR_YUV2BGR_YUYV) of the whole frame, then the skin
          mask (cvtColor to YCrCb + inRange, bounds of ccore_skin_bounds_default)
          and masked means over the same three ROIs, plus mean luma.
  MJPEG : cv2.imdecode of the full frame, then the same.
A second, informational variant ("crop") converts only the ROI crops, the
best case for Python; the DESIGN.md targets compare against the usual way.

  python_peer.py [--yuyv FILE --size WxH] [--mjpeg FILE]... [--json] [--cpu N]
                 [--seconds S] [--warmup N]
"""
import argparse
import json
import os
import sys
import time

try:
    import numpy as np
    import cv2
except ImportError as e:  # pragma: no cover - depends on the environment
    sys.exit(
        f"python_peer.py: {e.name or e} is missing. Install it with\n"
        "    python3 -m pip install numpy opencv-python-headless\n"
        "(Tools/bench/run-bench.sh does this in a venv under .build-bench/venv)."
    )

# Same rectangles as ccore-bench (RegionSet.centeredFace): forehead, cheeks.
ROIS = [
    (0.42, 0.22, 0.16, 0.08),
    (0.36, 0.46, 0.08, 0.10),
    (0.56, 0.46, 0.08, 0.10),
]
# ccore_skin_bounds_default(): Y 40-250, Cb 77-127, Cr 133-173, in OpenCV's
# YCrCb channel order (Y, Cr, Cb).
SKIN_LO = np.array([40, 133, 77], dtype=np.uint8)
SKIN_HI = np.array([250, 173, 127], dtype=np.uint8)


def roi_boxes(width, height):
    """Pixel boxes exactly as the C core rounds them (float32, lrintf)."""
    boxes = []
    w, h = np.float32(width), np.float32(height)
    for x, y, rw, rh in ROIS:
        x, y, rw, rh = (np.float32(v) for v in (x, y, rw, rh))

        def px(v, lim):
            if v <= 0:
                return 0
            if v >= lim:
                return int(lim)
            return int(np.rint(v))

        x0, y0 = px(x * w, w), px(y * h, h)
        x1, y1 = px((x + rw) * w, w), px((y + rh) * h, h)
        boxes.append((x0, y0, max(x1, x0), max(y1, y0)))
    return boxes


def measure_bgr(bgr, boxes):
    """Skin mask over the whole frame, masked ROI means, mean luma."""
    ycrcb = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    mask = cv2.inRange(ycrcb, SKIN_LO, SKIN_HI)
    out = []
    for x0, y0, x1, y1 in boxes:
        m = mask[y0:y1, x0:x1]
        n = cv2.countNonZero(m)
        b, g, r, _ = cv2.mean(bgr[y0:y1, x0:x1], mask=m) if n else (0, 0, 0, 0)
        out.append((r, g, b, n / m.size))
    luma = cv2.mean(ycrcb)[0]
    return out, luma


def usual_yuyv(frame, boxes):
    bgr = cv2.cvtColor(frame, cv2.COLOR_YUV2BGR_YUYV)
    return measure_bgr(bgr, boxes)


def usual_jpeg(data, boxes):
    bgr = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return measure_bgr(bgr, boxes)


def crop_yuyv(frame, boxes):
    """Informational: convert only the ROI crops (x aligned to YUYV pairs)."""
    out = []
    for x0, y0, x1, y1 in boxes:
        a, b = x0 & ~1, (x1 + 1) & ~1
        bgr = cv2.cvtColor(frame[y0:y1, a:b], cv2.COLOR_YUV2BGR_YUYV)[:, x0 - a : x0 - a + (x1 - x0)]
        mask = cv2.inRange(cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb), SKIN_LO, SKIN_HI)
        n = cv2.countNonZero(mask)
        bb, g, r, _ = cv2.mean(bgr, mask=mask) if n else (0, 0, 0, 0)
        out.append((r, g, bb, n / mask.size))
    luma = float(frame[::10, ::20, 0].mean())  # sparse grid, like the C core
    return out, luma


def crop_jpeg(data, boxes):
    """Informational: full decode (OpenCV has no scaled YCbCr decode) + crops."""
    bgr = cv2.imdecode(data, cv2.IMREAD_COLOR)
    out = []
    for x0, y0, x1, y1 in boxes:
        c = bgr[y0:y1, x0:x1]
        mask = cv2.inRange(cv2.cvtColor(c, cv2.COLOR_BGR2YCrCb), SKIN_LO, SKIN_HI)
        n = cv2.countNonZero(mask)
        b, g, r, _ = cv2.mean(c, mask=mask) if n else (0, 0, 0, 0)
        out.append((r, g, b, n / mask.size))
    luma = float(cv2.cvtColor(bgr[::10, ::10], cv2.COLOR_BGR2GRAY).mean())
    return out, luma


def split_jpegs(blob):
    """Splits a concatenated-JPEG stream: walk the header segments to SOS, then
    the first FFD9 after it is the EOI (entropy data stuffs every FF)."""
    frames, pos = [], 0
    while pos + 4 <= len(blob):
        if blob[pos : pos + 2] != b"\xff\xd8":
            raise ValueError(f"no JPEG SOI at byte {pos}")
        p = pos + 2
        while True:
            while blob[p] == 0xFF and blob[p + 1] == 0xFF:
                p += 1
            marker = blob[p + 1]
            length = (blob[p + 2] << 8) | blob[p + 3]
            p += 2 + length
            if marker == 0xDA:
                break
        end = blob.find(b"\xff\xd9", p)
        if end < 0:
            raise ValueError(f"truncated JPEG at byte {pos}")
        frames.append(np.frombuffer(blob[pos : end + 2], dtype=np.uint8))
        pos = end + 2
    return frames


def stats(ns):
    a = np.sort(np.asarray(ns, dtype=np.float64)) / 1000.0
    k = max(int(np.ceil(0.99 * len(a))) - 1, 0)
    return {
        "iterations": len(a),
        "mean_us": float(a.mean()),
        "median_us": float(np.median(a)),
        "p99_us": float(a[k]),
        "min_us": float(a[0]),
        "max_us": float(a[-1]),
    }


def run(fn, frames, boxes, seconds, warmup):
    n = len(frames)
    for i in range(max(warmup, n)):
        fn(frames[i % n], boxes)
    first = fn(frames[0], boxes)
    samples, i = [], 0
    clock = time.perf_counter_ns
    start = clock()
    budget = int(seconds * 1e9)
    while len(samples) < 200 or clock() - start < budget:
        f = frames[i % n]
        t0 = clock()
        fn(f, boxes)
        samples.append(clock() - t0)
        i += 1
    return stats(samples), first


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--yuyv")
    ap.add_argument("--size", help="YUYV frame size, WxH")
    ap.add_argument("--mjpeg", action="append", default=[])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cpu", type=int, default=-1)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=int, default=60)
    a = ap.parse_args()
    if not a.yuyv and not a.mjpeg:
        ap.error("give --yuyv FILE --size WxH and/or --mjpeg FILE")

    cpu = None
    try:
        allowed = sorted(os.sched_getaffinity(0))
        cpu = a.cpu if a.cpu >= 0 else allowed[-1]
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError) as e:
        print(f"python_peer.py: warning: could not pin to one core: {e}", file=sys.stderr)
        cpu = None
    cv2.setNumThreads(1)  # one core, like the C core's capture thread

    clips = []
    if a.yuyv:
        w, h = (int(v) for v in a.size.split("x"))
        raw = np.fromfile(a.yuyv, dtype=np.uint8)
        n = raw.size // (w * h * 2)
        frames = [np.ascontiguousarray(f) for f in raw[: n * w * h * 2].reshape(n, h, w, 2)]
        clips.append(("yuyv", w, h, a.yuyv, frames, usual_yuyv, crop_yuyv))
    for path in a.mjpeg:
        with open(path, "rb") as f:
            frames = split_jpegs(f.read())
        h, w = cv2.imdecode(frames[0], cv2.IMREAD_COLOR).shape[:2]
        clips.append(("mjpeg", w, h, path, frames, usual_jpeg, crop_jpeg))

    lines = []
    for kind, w, h, path, frames, usual, crop in clips:
        boxes = roi_boxes(w, h)
        for variant, fn in (("usual", usual), ("crop", crop)):
            st, (rois, luma) = run(fn, frames, boxes, a.seconds if variant == "usual" else a.seconds / 2, a.warmup)
            what = {
                ("yuyv", "usual"): "cvtColor YUYV->BGR (whole frame) + YCrCb + inRange + masked means + mean luma",
                ("yuyv", "crop"): "cvtColor of the ROI crops only + YCrCb + inRange + masked means (informational)",
                ("mjpeg", "usual"): "imdecode (full frame) + YCrCb + inRange + masked means + mean luma",
                ("mjpeg", "crop"): "imdecode (full frame) + skin mask on the ROI crops only (informational)",
            }[(kind, variant)]
            lines.append(
                dict(
                    id=f"{kind}-{w}x{h}-{variant}",
                    kind=kind,
                    width=w,
                    height=h,
                    variant=variant,
                    what=what,
                    frames=len(frames),
                    **st,
                    frame0=dict(
                        mean_luma=luma,
                        rois=[dict(r=r, g=g, b=b, skin=s) for r, g, b, s in rois],
                    ),
                )
            )

    if a.json:
        json.dump(
            dict(tool="python_peer", cpu=cpu, opencv=cv2.__version__, numpy=np.__version__, lines=lines),
            sys.stdout,
            indent=1,
        )
        print()
        return
    print(f"python_peer.py: OpenCV {cv2.__version__}, NumPy {np.__version__}, "
          f"{'CPU %d' % cpu if cpu is not None else 'not pinned'}, cv2.setNumThreads(1)")
    print(f"\n{'line':28} {'mean us':>9} {'median us':>9} {'p99 us':>9} {'iters':>7}")
    for l in lines:
        print(f"{l['id']:28} {l['mean_us']:9.2f} {l['median_us']:9.2f} {l['p99_us']:9.2f} {l['iterations']:7d}")
        print(f"  {l['what']}")


if __name__ == "__main__":
    main()
