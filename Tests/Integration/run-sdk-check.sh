#!/bin/bash
# The public SDK (CircadifySDK.measureVitals, cancel(), a disconnect) on a real V4L2 driver:
# renders a still ground-truth face clip, plays it into vivid's output->capture loopback
# inside the QEMU guest (scan-loopback.sh, vivid-feeder) and runs circadify-sdk-check on
# the capture node (Tests/Integration/sdk-check: measure ±3 bpm at confidence >= 0.7; cancel
# mid-scan then scan again; disconnect mid-scan -> captureFailed, nothing left open).
#
#   Tests/Integration/run-sdk-check.sh [--hr BPM]
#
# Prints the checks' `PASS name` / `FAIL name: reason` and `N passed, N failed` (counted by
# Tools/run-tests.sh). Builds in release (TCG runs -O0 code too slowly to keep up).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
hr=${2:-70}
[[ ${1:-} == --hr || $# -eq 0 ]] || { echo "usage: $0 [--hr BPM]" >&2; exit 2; }

readonly name=sdk-check
give_up() { echo "FAIL $name: $1"; echo "0 passed, 1 failed"; exit 1; }

for product in circadify-sdk-check vivid-feeder circadify-groundtruth; do
    swift build -c release --product "$product" >&2 || give_up "swift build -c release --product $product failed"
done
bin=$(swift build -c release --show-bin-path)

# The guest reads the clip through the host root, so it cannot live under /tmp. 60 s covers
# the three checks (15 s, a cancelled start and 15 s, an interrupted start) without a loop.
clip_dir=$repo/.build-vm/$name
mkdir -p "$clip_dir"
clip=$clip_dir/still-hr$hr.y4m
truth=${clip%.y4m}.json
"$bin/circadify-groundtruth" --scenario still --seed 2 --size 640x480 --fps 30 --duration 60 --hr "$hr" \
    --quiet -o "$clip" --truth "$truth" >&2 || give_up "circadify-groundtruth could not render the clip"
truth_hr=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meanHeartRate"])' "$truth")

rc=0
VM_TIMEOUT=${VM_TIMEOUT:-420} Tools/vm/run-in-guest.sh -- Tests/Integration/scan-loopback.sh \
    --feeder "$bin/vivid-feeder" --disconnects "$clip" -- "$bin/circadify-sdk-check" --device @CAPTURE@ --hr "$truth_hr" || rc=$?
case $rc in
0 | 1) exit "$rc" ;;
3) give_up "vivid-feeder failed (see its messages above)" ;;
124) give_up "the guest timed out (VM_TIMEOUT)" ;;
125) give_up "the VM harness failed (see its messages above)" ;;
*) give_up "the check exited $rc" ;;
esac
