#!/bin/bash
# The latency profiler on a real V4L2 driver: renders a still face clip, plays it into
# vivid's output->capture loopback inside the QEMU guest (scan-loopback.sh, vivid-feeder)
# and runs `circadify-latency --device CAPTURE --duration S --json` on the capture node,
# then checks its JSON: frames received and timed, each every-frame stage with its five
# percentiles in order, the source described, a frame rate achieved.
#
#   Tests/Integration/run-latency-guest.sh [--duration S]
#
# Prints `PASS name` / `FAIL name: reason` per check, the profiler's end-to-end line, and
# `N passed, N failed` (counted by Tools/run-tests.sh). Exit 0 when all passed. Builds in
# release (TCG runs -O0 code too slowly); the clip and the JSON go to .build-vm/latency/.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"

duration=10
usage() { echo "usage: $0 [--duration S]" >&2; exit 2; }
if [[ $# -gt 0 ]]; then
    [[ $# -eq 2 && $1 == --duration && $2 =~ ^[0-9]+$ ]] || usage
    duration=$2
fi

readonly name=latency-guest
give_up() { echo "FAIL $name: $1"; echo "0 passed, 1 failed"; exit 1; }

for product in circadify-latency vivid-feeder circadify-groundtruth; do
    swift build -c release --product "$product" >&2 || give_up "swift build -c release --product $product failed"
done
bin=$(swift build -c release --show-bin-path)

# The guest reads the clip through the host root, so it cannot live under /tmp; it must
# outlast the settling, the profiler's start under emulation and its run.
work=$repo/.build-vm/latency
mkdir -p "$work"
clip=$work/still.y4m
"$bin/circadify-groundtruth" --scenario still --seed 1 --size 640x480 --fps 30 --duration $((duration + 30)) \
    --quiet -o "$clip" >&2 || give_up "circadify-groundtruth could not render the clip"

json=$work/guest.json
rc=0
VM_TIMEOUT=${VM_TIMEOUT:-300} Tools/vm/run-in-guest.sh -- Tests/Integration/scan-loopback.sh \
    --feeder "$bin/vivid-feeder" "$clip" -- "$bin/circadify-latency" --device @CAPTURE@ --duration "$duration" \
    --json >"$json" || rc=$?
case $rc in
0) ;;
3) give_up "vivid-feeder failed (see its messages above)" ;;
124) give_up "the guest timed out (VM_TIMEOUT)" ;;
125) give_up "the VM harness failed (see its messages above)" ;;
*) give_up "circadify-latency exited $rc in the guest: $(head -c 300 "$json")" ;;
esac

python3 - "$json" <<'PY'
import json, sys

passed = failed = 0
def check(name, ok, why):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {why}")

try:
    report = json.load(open(sys.argv[1]))
except ValueError as error:
    print(f"FAIL latency-json: not one JSON object ({error})")
    print("0 passed, 1 failed")
    sys.exit(1)
check("latency-json", isinstance(report, dict) and "error" not in report,
      f"an error or no object: {str(report)[:200]}")
source, frames, stages = report.get("source", {}), report.get("frames", {}), report.get("stages", {})
check("latency-source", source.get("kind") == "device" and source.get("width") == 640 and source.get("format"),
      f"source {source}")
check("latency-frames", frames.get("received", 0) > 0 and frames.get("timed", 0) > 0,
      f"frames {frames}")
keys = ["p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"]
for name in ["dequeue", "kernels", "ring_residence", "analysis", "end_to_end"]:
    stage = stages.get(name, {})
    values = [stage.get(k) for k in keys]
    ok = stage.get("count", 0) > 0 and all(isinstance(v, (int, float)) for v in values) \
        and values == sorted(values) and values[0] >= 0
    check(f"latency-{name}", ok, f"{name}: {stage}")
check("latency-rate", (report.get("achieved_fps") or 0) > 0, f"achieved_fps {report.get('achieved_fps')}")
e2e = stages.get("end_to_end", {})
print(f"    end to end (ms): p50 {e2e.get('p50_us', 0) / 1000:.2f}, p99 {e2e.get('p99_us', 0) / 1000:.2f}, "
      f"max {e2e.get('max_us', 0) / 1000:.2f}; {frames.get('received')} frames received, "
      f"{frames.get('dropped_by_sequence')} dropped by sequence, {report.get('achieved_fps', 0):.1f} fps, "
      f"CPU {report.get('cpu_percent', 0):.1f}%")
print(f"{passed} passed, {failed} failed")
sys.exit(0 if failed == 0 else 1)
PY
