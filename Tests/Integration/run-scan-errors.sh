#!/bin/bash
# The camera's error paths through the real CLI: builds circadify and vivid-feeder (release),
# renders a short still face clip and runs scan-errors.sh inside the QEMU guest, where
# `circadify scan --device ... --json` meets a missing node, a node it may not open, a node
# another process streams, SIGINT or SIGHUP while measuring and vivid's disconnect while measuring.
#
#   Tests/Integration/run-scan-errors.sh
#
# Prints `PASS name` / `FAIL name: reason` per check and closes with `N passed, N failed`,
# like the vivid suite (Tools/run-tests.sh counts it). Exit 0 when all passed.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"

readonly name=scan-errors
give_up() { echo "FAIL $name: $1"; echo "0 passed, 1 failed"; exit 1; }

for product in circadify vivid-feeder circadify-groundtruth; do
    swift build -c release --product "$product" >&2 || give_up "swift build -c release --product $product failed"
done
bin=$(swift build -c release --show-bin-path)

# The guest reads the clip through the host root, so it cannot live under /tmp. 30 s covers
# both interrupted scans (each stops about 10 s in) without the clip looping.
clip_dir=$repo/.build-vm/$name
mkdir -p "$clip_dir"
clip=$clip_dir/still.y4m
"$bin/circadify-groundtruth" --scenario still --seed 1 --size 640x480 --fps 30 --duration 30 --hr 72 \
    --quiet -o "$clip" >&2 || give_up "circadify-groundtruth could not render the clip"

rc=0
VM_TIMEOUT=${VM_TIMEOUT:-420} Tools/vm/run-in-guest.sh -- Tests/Integration/scan-errors.sh \
    --feeder "$bin/vivid-feeder" "$bin/circadify" "$clip" || rc=$?
case $rc in
0 | 1) exit "$rc" ;;
124) give_up "the guest timed out (VM_TIMEOUT)" ;;
125) give_up "the VM harness failed (see its messages above)" ;;
*) give_up "scan-errors.sh exited $rc" ;;
esac
