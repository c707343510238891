#!/usr/bin/env python3
"""The whole-pipeline table of `pipeline-vs-peers.sh`: medians per tool and clip,
the ratios to `circadify scan` and the targets (DESIGN.md section 7, issue 12),
as a Markdown table. Standard library only.

  pipeline_report.py --clip NAME=FILE ... --runs-dir DIR --seconds S [--fps F]

DIR holds TOOL.CLIP.RUN.{time,out,rc}: GNU time's "user sys wall maxrss_kb",
the tool's stdout (one JSON object) and its exit status."""
import argparse
import glob
import json
import os
import statistics

TOOLS = [("circadify", "circadify scan"), ("python", "plain Python (OpenCV + Haar + POS)"),
         ("vitallens", "vitallens POS")]
# CPU per frame targets for circadify scan, ms (DESIGN.md section 7 / issue 12).
TARGETS = {"y4m-640x480": 0.25, "mjpeg-640x480": 0.5, "mjpeg-640x480-r10": 0.5, "mjpeg-1280x720": 0.8}
MIN_RATIO_TO_PYTHON = 8.0


def truth_hr(clip_file, seconds):
    """Mean heart rate of the clip's first `seconds` (all of it if None), from its beat times."""
    with open(os.path.splitext(clip_file)[0] + ".json") as f:
        beats = [t for t in json.load(f)["beatTimes"] if seconds is None or t <= seconds]
    return 60.0 * (len(beats) - 1) / (beats[-1] - beats[0]) if len(beats) >= 2 else None


def load_run(base, tool, seconds, fps):
    """One run: dict with cpu_ms (per frame), wall, rss_mb, hr, frames, or error."""
    rc = int(open(base + ".rc").read().strip())
    out = open(base + ".out").read().strip()
    result = {}
    try:
        result = json.loads(out.splitlines()[-1]) if out else {}
    except json.JSONDecodeError:
        pass
    if rc != 0 or "error" in result:
        err = open(base + ".err").read().strip().splitlines()
        why = result.get("message") or (err[-1] if err else "")
        return {"error": f"exit {rc}: {why}"[:160]}
    user, sys_, wall, rss_kb = open(base + ".time").read().split()[-4:]
    # circadify scan measures `seconds` from the first frame at the face, a frame or
    # few into the clip; counting only those makes its figure err high, never low. The
    # Python peers say how many frames they read. circadify measures `--duration` seconds
    # from the first frame at the face, a frame or few into the clip: counting only the
    # measured ones makes its figure err high, never low.
    frames = round(seconds * fps) if tool == "circadify" else result.get("frames")
    if not frames:
        return {"error": "read no frames"}
    return {"cpu_ms": (float(user) + float(sys_)) * 1000.0 / frames, "wall": float(wall),
            "rss_mb": int(rss_kb) / 1024.0, "hr": result.get("heartRate"), "frames": frames}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clip", action="append", required=True, help="NAME=FILE")
    ap.add_argument("--runs-dir", required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--cpu", default="?")
    ap.add_argument("--load-before", default="?")
    ap.add_argument("--load-after", default="?")
    ap.add_argument("--uptime", default="")
    a = ap.parse_args()
    clips = [c.split("=", 1) for c in a.clip]

    summary = {}
    lines = ["| clip | tool | frames | CPU ms/frame | x circadify | wall s | peak RSS MiB | HR bpm (truth) |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    runs_seen = 0
    for name, clip_file in clips:
        for tool, label in TOOLS:
            bases = sorted(p[:-3] for p in glob.glob(os.path.join(a.runs_dir, f"{tool}.{name}.*.rc")))
            if not bases:
                continue
            runs = [load_run(b, tool, a.seconds, a.fps) for b in bases]
            runs_seen = max(runs_seen, len(runs))
            ok = [r for r in runs if "error" not in r]
            # vitallens reads the whole clip, the others its first `seconds`.
            truth = truth_hr(clip_file, None if tool == "vitallens" else a.seconds)
            truth_txt = f"{truth:.1f}" if truth else "-"
            if not ok:
                lines.append(f"| {name} | {label} | - | failed | | | | {runs[0]['error']} |")
                continue
            cpu = median(r["cpu_ms"] for r in ok)
            summary[(name, tool)] = cpu
            ratio = "" if tool == "circadify" or (name, "circadify") not in summary \
                else f"{cpu / summary[(name, 'circadify')]:.1f}x"
            hrs = sorted({round(r["hr"], 1) for r in ok if r["hr"] is not None})
            hr_txt = "/".join(f"{h:g}" for h in hrs) if hrs else "none"
            failed = f" ({len(runs) - len(ok)} of {len(runs)} runs failed: {next(r for r in runs if 'error' in r)['error']})" \
                if len(ok) < len(runs) else ""
            lines.append(f"| {name} | {label} | {ok[0]['frames']} | {cpu:.2f} | {ratio} | "
                         f"{median(r['wall'] for r in ok):.1f} | {median(r['rss_mb'] for r in ok):.0f} | "
                         f"{hr_txt} ({truth_txt}){failed} |")

    print(f"Whole pipeline, medians of {runs_seen} runs per tool and clip, each pinned to CPU {a.cpu}; "
          f"{a.seconds:g} s of a {a.fps:g} fps still face (circadify and the plain pipeline read the first "
          f"{a.seconds:g} s, vitallens the whole clip, 2 s longer). CPU = user + sys of the whole process tree "
          f"(ffmpeg included) / frames read. 'x circadify' = that tool's CPU per frame / circadify's.")
    print(f"load average before {a.load_before}, after {a.load_after}; {a.uptime.strip()}")
    print()
    print("\n".join(lines))
    print()
    print("Targets for circadify scan (DESIGN.md section 7, issue 12):")
    for name, _ in clips:
        ours = summary.get((name, "circadify"))
        if ours is None:
            print(f"  {name}: no circadify scan result (see the table)")
            continue
        verdicts = []
        if name in TARGETS:
            limit = TARGETS[name]
            verdicts.append(f"{ours:.2f} ms/frame vs <= {limit} ms: {'met' if ours <= limit else 'MISSED'}")
        py = summary.get((name, "python"))
        if py is not None:
            ratio = py / ours
            verdicts.append(f"{ratio:.1f}x less CPU than the plain Python pipeline vs >= {MIN_RATIO_TO_PYTHON:g}x: "
                            f"{'met' if ratio >= MIN_RATIO_TO_PYTHON else 'MISSED'}")
        print(f"  {name}: " + "; ".join(verdicts))
    load = a.load_before.split()
    if load and load[0] != "?" and float(load[0]) > 0.5:
        print(f"\nNote: the load average was {load[0]} before the run: other work shared the machine, "
              "so wall times (and, less so, CPU times) are inflated; re-run on an idle machine to compare.")


if __name__ == "__main__":
    main()
