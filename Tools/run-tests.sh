#!/usr/bin/env bash
# All tests: installs what they need, runs the unit tests (swift test), the same
# tests again under AddressSanitizer (the C code also under UBSan), each fuzz target
# for a minute, the kernel-driver suite (the vivid V4L2 driver inside a QEMU guest),
# the loopback scan (a ground-truth clip through vivid into `circadify scan`) and the
# camera's error paths through the same command, and closes with one line counting
# them all.
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

# The unit tests again, built into .build-asan with AddressSanitizer on every target and
# UndefinedBehaviorSanitizer on the C ones (through clang; Swift has no UBSan on Linux).
# The CLI tests run the sanitized `circadify` beside the test runner. Any report aborts the
# process, so it fails its test. Leak checks are off here (the Swift runtime keeps its
# metadata for good); the fuzzers check the C core for leaks.
echo "== unit tests under AddressSanitizer + UBSan (.build-asan)"
sanitized=(--sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize=function --scratch-path .build-asan)
{ swift build --build-tests "${sanitized[@]}" 2>&1 | grep -E "error|warning: unre" ; \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  swift test --skip-build "${sanitized[@]}" 2>&1; } | tee "$log/asan.txt" | grep -vE "^\[[0-9]+/[0-9]+\]|^◇ |passed after"
asan_passed=$(grep -cE "^✔ Test .*\) passed" "$log/asan.txt")
asan_failed=$(grep -cE "^✘ Test .*\) failed" "$log/asan.txt")
if ! grep -qE "^✔ Test run with [0-9]+ tests? .*passed" "$log/asan.txt" && [ "$asan_failed" -eq 0 ]; then
    asan_failed=1 # a build failure or a sanitizer abort counts
fi

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

echo "== fuzzing (libFuzzer, ASan + UBSan; each target 60 s from the committed seeds)"
FUZZ_SKIP_SETUP=1 Tests/Fuzz/run-fuzz.sh 60 2>&1 | tee "$log/fuzz.txt"
fuzz_rc=${PIPESTATUS[0]}
read -r fuzz_passed fuzz_failed < <(count_suite "$log/fuzz.txt" "$fuzz_rc")

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

echo "unit: $unit_passed passed, $unit_failed failed; sanitized: $asan_passed passed, $asan_failed failed;" \
    "fuzz: $fuzz_passed passed, $fuzz_failed failed; vivid: $vivid_passed passed, $vivid_failed failed;" \
    "scan: $scan_passed passed, $scan_failed failed; camera errors: $errors_passed passed, $errors_failed failed"
echo "total: $((unit_passed + asan_passed + fuzz_passed + vivid_passed + scan_passed + errors_passed)) passed," \
    "$((unit_failed + asan_failed + fuzz_failed + vivid_failed + scan_failed + errors_failed)) failed"
[ "$unit_rc" -eq 0 ] && [ "$asan_failed" -eq 0 ] && [ "$fuzz_rc" -eq 0 ] && [ "$vivid_rc" -eq 0 ] && \
    [ "$scan_rc" -eq 0 ] && [ "$errors_rc" -eq 0 ]
