#!/usr/bin/env bash
# All tests: installs what they need, runs the unit tests (swift test), a client
# package that depends on this one by version (Tests/Consumer), the DocC build, the
# kernel-driver suite (the vivid V4L2 driver inside a QEMU guest), the loopback
# scan (a ground-truth clip through vivid into `circadify scan`) and the camera's
# error paths through the same command, and closes with one line counting them all.
set -uo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh || exit 1
log="$(mktemp -d)"
trap 'rm -rf "$log"' EXIT

# The package carries no unsafeFlags (a client that depends on it by version would refuse
# them), so CI adds its own C flags here: the warnings, as errors, and -O2, without which the
# ground-truth generator renders the tests' clips about four times slower.
c_flags=(-Xcc -O2 -Xcc -Wall -Xcc -Wextra -Xcc -Wno-unused-parameter -Xcc -Werror=all -Xcc -Werror=extra)

echo "== unit tests (swift test ${c_flags[*]})"
swift test "${c_flags[@]}" 2>&1 | tee "$log/unit.txt" | grep -vE "^\[[0-9]+/[0-9]+\]|^◇ |passed after"
unit_rc=${PIPESTATUS[0]}
unit_passed=$(grep -cE "^✔ Test .*\) passed" "$log/unit.txt")
unit_failed=$(grep -cE "^✘ Test .*\) failed" "$log/unit.txt")
if [ "$unit_rc" -ne 0 ] && [ "$unit_failed" -eq 0 ]; then unit_failed=1; fi  # a build failure counts

# Counts a suite's `N passed, N failed` closing line; a run that fails without a failing
# test (a guest that did not finish, say) counts as one failure.
count_suite() { # output-file exit-code -> "passed failed"
    local passed failed
    read -r passed failed < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$1" | tail -1)
    passed=${passed:-0}
    failed=${failed:-0}
    if [ "$2" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
    echo "$passed $failed"
}

echo "== consumer (a client package builds and runs against a tagged copy, by version)"
Tests/Consumer/run-consumer.sh 2>&1 | tee "$log/consumer.txt"
consumer_rc=${PIPESTATUS[0]}
read -r consumer_passed consumer_failed < <(count_suite "$log/consumer.txt" "$consumer_rc")

echo "== documentation (DocC, warnings are errors)"
Tools/build-docs.sh 2>&1 | tee "$log/docs.txt"
docs_rc=${PIPESTATUS[0]}
read -r docs_passed docs_failed < <(count_suite "$log/docs.txt" "$docs_rc")

echo "== kernel-driver suite (vivid in a QEMU guest)"
Tests/Integration/run-vivid-suite.sh 2>&1 | tee "$log/vivid.txt"
vivid_rc=${PIPESTATUS[0]}
read -r vivid_passed vivid_failed < <(count_suite "$log/vivid.txt" "$vivid_rc")

echo "== loopback scan (a ground-truth clip through vivid into circadify scan)"
Tests/Integration/run-scan-loopback.sh 2>&1 | tee "$log/scan.txt"
scan_rc=${PIPESTATUS[0]}
read -r scan_passed scan_failed < <(count_suite "$log/scan.txt" "$scan_rc")

echo "== camera error paths (circadify scan --device against vivid in the guest)"
Tests/Integration/run-scan-errors.sh 2>&1 | tee "$log/errors.txt"
errors_rc=${PIPESTATUS[0]}
read -r errors_passed errors_failed < <(count_suite "$log/errors.txt" "$errors_rc")

echo "unit: $unit_passed passed, $unit_failed failed;" \
    "consumer: $consumer_passed passed, $consumer_failed failed; docs: $docs_passed passed, $docs_failed failed;" \
    "vivid: $vivid_passed passed, $vivid_failed failed; scan: $scan_passed passed, $scan_failed failed;" \
    "camera errors: $errors_passed passed, $errors_failed failed"
echo "total: $((unit_passed + consumer_passed + docs_passed + vivid_passed + scan_passed + errors_passed)) passed," \
    "$((unit_failed + consumer_failed + docs_failed + vivid_failed + scan_failed + errors_failed)) failed"
[ "$unit_rc" -eq 0 ] && [ "$consumer_rc" -eq 0 ] && [ "$docs_rc" -eq 0 ] && [ "$vivid_rc" -eq 0 ] &&
    [ "$scan_rc" -eq 0 ] && [ "$errors_rc" -eq 0 ]
