#!/usr/bin/env python3
"""Side-by-side table of ccore-bench and python_peer.py results, with the
Python/C ratios and the DESIGN.md section 7 targets marked met or missed.

  report.py C.json PYTHON.json [--load-before "a b c"] [--load-after "a b c"]

Standard library only. Times are per frame on one core; every verdict uses
the mean (the CPU a frame costs on average, thumbnail frames included)."""
import argparse
import json
import sys


def fmt(v, w=8):
    return f"{v:{w}.1f}" if v is not None else " " * (w - 1) + "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("c_json")
    ap.add_argument("py_json")
    ap.add_argument("--load-before", default="")
    ap.add_argument("--load-after", default="")
    a = ap.parse_args()
    c = json.load(open(a.c_json))
    p = json.load(open(a.py_json))
    cl = {l["id"]: l for l in c["lines"]}
    pl = {l["id"]: l for l in p["lines"]}

    rows = []  # (label, c line, python line, python variant)
    yuyv = [l for l in c["lines"] if l["kind"] == "yuyv" and l["group"] == "processor"]
    for l in yuyv:
        size = f"{l['width']}x{l['height']}"
        label = f"YUYV {size}" + {0: "", 1: ", 1 frame (hot)"}.get(l["buffers"], f", {l['buffers']} buffers (L3)")
        rows.append((label, l, pl.get(f"yuyv-{size}-usual"), "usual"))
    mj = [l for l in c["lines"] if l["kind"] == "mjpeg" and l["group"] == "processor"]
    for l in mj:
        size = f"{l['width']}x{l['height']}"
        how = "forced" if l["forced"] else "auto"
        rows.append((f"MJPEG {size} 1/{l['scale']} {how}", l, pl.get(f"mjpeg-{size}-usual"), "usual"))
    for l in yuyv + [m for m in mj if not m["forced"]]:
        if l["buffers"]:
            continue
        size = f"{l['width']}x{l['height']}"
        q = pl.get(f"{l['kind']}-{size}-crop")
        if q:
            rows.append((f"{l['kind'].upper()} {size} vs Python crop-only", l, q, "crop"))

    print("C core (ccore_processor_process) vs Python (OpenCV + NumPy), per frame, one core, microseconds")
    print(f"  C: CPU {c['cpu']}, timer overhead ~{c['timer_overhead_ns']} ns;"
          f" Python: OpenCV {p.get('opencv')}, NumPy {p.get('numpy')}, CPU {p.get('cpu')}, cv2.setNumThreads(1)")
    for clip in c["clips"]:
        print(f"  clip {clip['kind']} {clip['width']}x{clip['height']}: {clip['frames']} frames,"
              f" {clip['bytes_per_frame'] / 1024:.0f} KiB/frame")
    hdr = (f"{'case':34} {'C mean':>8} {'median':>8} {'p99':>8} | {'Py mean':>8} {'median':>8} {'p99':>8}"
           f" | {'Py/C mean':>9} {'median':>7} | {'C allocs/fr':>11}")
    print()
    print(hdr)
    print("-" * len(hdr))
    crop_header = False
    for label, l, q, variant in rows:
        if variant == "crop" and not crop_header:
            crop_header = True
            print("informational: Python converting only the ROI crops (the MJPEG one still decodes the full frame):")
        r_mean = q["mean_us"] / l["mean_us"] if q else None
        r_med = q["median_us"] / l["median_us"] if q else None
        print(f"{label:34} {fmt(l['mean_us'])} {fmt(l['median_us'])} {fmt(l['p99_us'])} |"
              f" {fmt(q and q['mean_us'])} {fmt(q and q['median_us'])} {fmt(q and q['p99_us'])} |"
              f" {fmt(r_mean, 8)}x {fmt(r_med, 6)}x | {l['allocs_per_frame']:11.2f}")

    # Sanity: the two sides computed the same thing (frame 0, usual way).
    print("\nsame work? ROI means of frame 0, C vs Python (max |difference| over the 3 ROIs, 0-255 levels):")
    for label, l, q, variant in rows:
        if variant != "usual" or not q or l["buffers"] or l["forced"]:
            continue
        d_rgb = max(abs(x[k] - y[k]) for x, y in zip(l["frame0"]["rois"], q["frame0"]["rois"]) for k in "rgb")
        d_skin = max(abs(x["skin"] - y["skin"]) for x, y in zip(l["frame0"]["rois"], q["frame0"]["rois"]))
        g = ", ".join(f"{x['g']:.1f}/{y['g']:.1f}" for x, y in zip(l["frame0"]["rois"], q["frame0"]["rois"]))
        print(f"  {label:30} RGB {d_rgb:5.2f}, skin fraction {d_skin:.3f}  (G C/Py: {g})")

    # Targets (DESIGN.md section 7).
    def line(kind, w, h):
        for l in c["lines"]:
            if (l["kind"], l["width"], l["height"], l["group"], l["forced"], l["buffers"]) == (
                kind, w, h, "processor", False, 0):
                return l
        return None

    results = []

    def target(name, ok, detail):
        results.append(ok)
        mark = "n/a   " if ok is None else ("MET   " if ok else "MISSED")
        print(f"  [{mark}] {name}: {detail}")

    print("\ntargets (DESIGN.md section 7; judged on the mean per frame):")
    y = line("yuyv", 640, 480)
    py_y = pl.get("yuyv-640x480-usual")
    if y:
        target("YUYV 640x480 C core <= 30 us/frame", y["mean_us"] <= 30.0,
               f"{y['mean_us']:.1f} us (median {y['median_us']:.1f}, p99 {y['p99_us']:.1f})")
        if py_y:
            r = py_y["mean_us"] / y["mean_us"]
            target("YUYV 640x480 >= 10x less than Python", r >= 10.0,
                   f"{r:.1f}x ({py_y['mean_us']:.0f} us vs {y['mean_us']:.1f} us;"
                   " design's dev-machine Python: 270-340 us)")
        target("YUYV 0 heap allocations per frame after warm-up", y["allocs_per_frame"] == 0,
               f"{y['allocs_per_frame']:.2f} allocations/frame over {y['alloc_frames']} frames")
    for (w, h) in ((1280, 720), (640, 480)):
        m = line("mjpeg", w, h)
        q = pl.get(f"mjpeg-{w}x{h}-usual")
        if not m:
            continue
        if q:
            r = q["mean_us"] / m["mean_us"]
            extra = "; design's dev-machine Python at 640x480: 1000-1500 us" if (w, h) == (640, 480) else ""
            target(f"MJPEG {w}x{h} >= 3x less than OpenCV full decode + means", r >= 3.0,
                   f"{r:.1f}x ({q['mean_us']:.0f} us vs {m['mean_us']:.0f} us at 1/{m['scale']}{extra})")
        if (w, h) == (1280, 720):
            target("MJPEG 1280x720 C core <= 1 ms/frame", m["mean_us"] <= 1000.0,
                   f"{m['mean_us']:.0f} us at the processor's scale 1/{m['scale']}"
                   f" (median {m['median_us']:.0f}, p99 {m['p99_us']:.0f})")
    for (w, h) in ((1280, 720), (640, 480)):
        m = line("mjpeg", w, h)
        if m:
            sites = "; ".join(
                f"{s['calls_per_frame']:.0f}x {s['min_size']}-{s['max_size']} B from {s['dso']} ({s['where']})"
                for s in m["alloc_sites"])
            target(f"MJPEG {w}x{h} 0 heap allocations per frame (capture thread, all formats)",
                   m["allocs_per_frame"] == 0,
                   f"{m['allocs_per_frame']:.2f}/frame" + (f": {sites}" if sites else ""))
    met = sum(1 for r in results if r)
    missed = sum(1 for r in results if r is False)
    if a.load_before or a.load_after:
        print(f"\nload average before: {a.load_before}  after: {a.load_after}")
        try:
            if float(a.load_before.split()[0]) > 0.7 or float(a.load_after.split()[0]) > 1.7:
                print("  WARNING: other processes were busy on this machine during the run;"
                      " the times above are inflated. Run again on an idle machine.")
        except (ValueError, IndexError):
            pass
    print(f"\n{met} targets met, {missed} missed")


if __name__ == "__main__":
    main()
