#!/usr/bin/env bash
# All tests: installs what they need, runs the unit tests (swift test) and the
# kernel-driver suite (the vivid V4L2 driver inside a QEMU guest), and closes
# with one line counting both.
set -uo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh || exit 1
log="$(mktemp -d)"
trap 'rm -rf "$log"' EXIT

echo "== unit tests (swift test)"
swift test 2>&1 | tee "$log/unit.txt" | grep -vE "^\[[0-9]+/[0-9]+\]|^◇ |passed after" 
unit_rc=${PIPESTATUS[0]}
unit_passed=$(grep -cE "^✔ Test .*\) passed" "$log/unit.txt")
unit_failed=$(grep -cE "^✘ Test .*\) failed" "$log/unit.txt")
if [ "$unit_rc" -ne 0 ] && [ "$unit_failed" -eq 0 ]; then unit_failed=1; fi  # a build failure counts

echo "== kernel-driver suite (vivid in a QEMU guest)"
Tests/Integration/run-vivid-suite.sh 2>&1 | tee "$log/vivid.txt"
vivid_rc=${PIPESTATUS[0]}
read -r vivid_passed vivid_failed < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$log/vivid.txt" | tail -1)
vivid_passed=${vivid_passed:-0}
vivid_failed=${vivid_failed:-0}
if [ "$vivid_rc" -ne 0 ] && [ "$vivid_failed" -eq 0 ]; then vivid_failed=1; fi  # the guest did not finish

echo "unit: $unit_passed passed, $unit_failed failed; vivid: $vivid_passed passed, $vivid_failed failed"
echo "total: $((unit_passed + vivid_passed)) passed, $((unit_failed + vivid_failed)) failed"
[ "$unit_rc" -eq 0 ] && [ "$vivid_rc" -eq 0 ]
