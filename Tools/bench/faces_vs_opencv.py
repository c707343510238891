"""OpenCV's CascadeClassifier and the C core's detector (ccore-facebench) on
the same grey pixels, one core, one run: faces, agreement and time per call.

Called by faces-vs-opencv.sh. Each input image becomes a PGM at full size and
a "thumb" at 320x240 (the top of a centred 4:3 crop, shrunk with area
averaging) unless the input already is 320x240; both detectors read exactly those pixels."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import cv2

SCALE, NEIGHBOURS = 1.1, 3


def iou(a, b):
    ax, ay, aw, ah = a[:4]
    bx, by, bw, bh = b[:4]
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / (aw * ah + bw * bh - inter)


def thumbnail(grey):
    h, w = grey.shape
    if (w, h) == (320, 240):
        return grey
    ch = min(h, w * 3 // 4)
    cw = ch * 4 // 3
    x0 = (w - cw) // 2
    return cv2.resize(grey[0:ch, x0:x0 + cw], (320, 240), interpolation=cv2.INTER_AREA)


def prepare(paths, work):
    """Grey PGMs of every input, full size and 320x240, in a stable order."""
    out = []
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        grey = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if grey is None:
            sys.exit(f"faces_vs_opencv.py: cannot read {path}")
        variants = [(name, grey)]
        if grey.shape != (240, 320):
            variants.append((name + " (thumb)", thumbnail(grey)))
        for label, image in variants:
            pgm = os.path.join(work, label.replace(" (thumb)", ".thumb") + ".pgm")
            cv2.imwrite(pgm, image)
            out.append((label, pgm, image))
    return out


def opencv_side(classifier, image, runs):
    faces, neighbours = classifier.detectMultiScale2(image, SCALE, NEIGHBOURS)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        classifier.detectMultiScale(image, SCALE, NEIGHBOURS)
        times.append((time.perf_counter() - start) * 1e3)
    boxes = sorted(([int(v) for v in f] + [int(n)] for f, n in zip(faces, neighbours)),
                   key=lambda b: -b[2] * b[3])
    return boxes, statistics.median(times)


def our_side(args, pgm):
    result = subprocess.run([args.facebench, "--cascade", args.cascade, "--scale", str(SCALE),
                             "--neighbours", str(NEIGHBOURS), "--runs", str(args.runs), pgm],
                            check=True, capture_output=True, text=True)
    return json.loads(result.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--facebench", required=True)
    ap.add_argument("--cascade", required=True)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--work", required=True)
    ap.add_argument("images", nargs="+")
    args = ap.parse_args()

    # Both sides on one core, OpenCV single-threaded: a per-call comparison.
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    cv2.setNumThreads(1)
    classifier = cv2.CascadeClassifier(args.cascade)
    if classifier.empty():
        sys.exit(f"faces_vs_opencv.py: OpenCV cannot load {args.cascade}")

    inputs = prepare(args.images, args.work)

    print(f"\nFace detection, {os.path.basename(args.cascade)}: scale {SCALE}, min neighbours {NEIGHBOURS}, "
          f"median of {args.runs} calls, CPU {cpu}, OpenCV {cv2.__version__} single-threaded")
    header = f"{'image':<28} {'size':>9} {'faces cv/ours':>13} {'IoU per OpenCV face':<22} " \
             f"{'OpenCV ms':>10} {'ours ms':>9} {'OpenCV/ours':>11}"
    print(header)
    print("-" * len(header))
    disagreements = 0
    for label, pgm, image in inputs:
        # Back to back on the same image, so both see the same machine load.
        mine = our_side(args, pgm)
        cv_faces, cv_ms = opencv_side(classifier, image, args.runs)
        our_faces = mine["faces"]
        ious = [max((iou(f, g) for g in our_faces), default=0.0) for f in cv_faces]
        agree = len(cv_faces) == len(our_faces) and all(v >= 0.8 for v in ious)
        disagreements += not agree
        size = f"{image.shape[1]}x{image.shape[0]}"
        iou_text = " ".join(f"{v:.2f}" for v in ious) or "-"
        print(f"{label:<28} {size:>9} {len(cv_faces):>6}/{len(our_faces):<6} {iou_text:<22} "
              f"{cv_ms:>10.2f} {mine['median_ms']:>9.2f} {cv_ms / mine['median_ms']:>10.2f}x"
              f"{'' if agree else '  <- differs'}")
    print(f"{len(inputs) - disagreements} of {len(inputs)} images agree (same face count, IoU >= 0.8 per face)")


if __name__ == "__main__":
    main()
