#!/bin/bash
# `circadify monitor` through a camera unplugged and plugged back: builds circadify (release:
# TCG runs -O0 code too slowly) and runs monitor-replug.sh inside the QEMU guest against
# vivid, whose `disconnect` control unplugs the camera.
#
#   Tests/Integration/run-monitor-replug.sh
#
# Prints the checks' `PASS name` / `FAIL name: reason` and `N passed, N failed` (counted by
# Tools/run-tests.sh). Exit 0 when all passed.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
readonly name=monitor-replug
give_up() { echo "FAIL $name: $1"; echo "0 passed, 1 failed"; exit 1; }

swift build -c release --product circadify >&2 || give_up "swift build -c release --product circadify failed"
bin=$(swift build -c release --show-bin-path)

rc=0
VM_TIMEOUT=${VM_TIMEOUT:-300} Tools/vm/run-in-guest.sh -- Tests/Integration/monitor-replug.sh "$bin/circadify" || rc=$?
case $rc in
0 | 1) exit "$rc" ;;
124) give_up "the guest timed out (VM_TIMEOUT)" ;;
125) give_up "the VM harness failed (see its messages above)" ;;
*) give_up "monitor-replug.sh exited $rc" ;;
esac
