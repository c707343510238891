#!/usr/bin/env bash
# All tests: installs what they need, then runs every suite below in order and closes
# with one line counting them all. Each suite is a command that prints its own
# `N passed, N failed` closing line (the unit tests are counted from swift test's output).
# The suites: unit tests, the same tests under AddressSanitizer (the C code also under
# UBSan), each fuzz target for a minute, the C core's exported symbols, a client package
# that depends on this one by version (Tests/Consumer), the DocC build, the seeds' flows on
# a replay camera, the monitor under a real Prometheus, the web preview in Chromium, the
# static release, the C example, the C core on arm64 under qemu-user, then, inside a QEMU
# guest with the vivid V4L2 driver, the core's kernel-driver suite, the SDK's measurement,
# a loopback scan, the camera's error paths, the monitor's unplug/replug and the profiler.
set -uo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh || exit 1
log="$(mktemp -d)"
trap 'rm -rf "$log"' EXIT

names=() passed=() failed=()
status=0

# The package carries no unsafeFlags (a client that depends on it by version would refuse
# them), so CI adds its own C flags here: the warnings, as errors, and -O2, without which the
# ground-truth generator renders the tests' clips about four times slower. Debug builds of
# the other suites use the same flags, so nothing is compiled twice.
c_flags=(-Xcc -O2 -Xcc -Wall -Xcc -Wextra -Xcc -Wno-unused-parameter -Xcc -Werror=all -Xcc -Werror=extra)
export CIRCADIFY_SWIFT_FLAGS="${c_flags[*]}"

# Counts a suite's `N passed, N failed` closing line; a run that fails without a failing
# test (a build error, a guest that did not finish) counts as one failure.
count_suite() { # output-file exit-code -> "passed failed"
    local p f
    read -r p f < <(sed -nE 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/p' "$1" | tail -1)
    p=${p:-0}
    f=${f:-0}
    if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    echo "$p $f"
}

suite() { # name title command...
    local name=$1 title=$2
    shift 2
    echo "== $title"
    "$@" 2>&1 | tee "$log/$name.txt"
    local rc=${PIPESTATUS[0]} p f
    read -r p f < <(count_suite "$log/$name.txt" "$rc")
    names+=("$name") passed+=("$p") failed+=("$f")
    [ "$rc" -eq 0 ] || status=1
}

# A test run that hangs (a deadlock once did) would hold CI to its limit and hide every
# later suite: each run of the test binary gets TEST_RUN_LIMIT (a normal run takes 2-4
# minutes here), then it is stopped, and the tests that started and never ended are named.
# swift test starts the test binary in a process group of its own, so that group is killed
# too (the binary and what it started: the CLI tests' circadify). The patterns are
# alternations of literal bytes, so they hold in the C locale.
run_limit=${TEST_RUN_LIMIT:-20m}
limited_test_run() { # raw-log swift-test-arguments... (the build is done before)
    timeout --kill-after=30s "$run_limit" swift test --skip-build "${@:2}" 2>&1
    local rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        local runner
        for runner in $(pgrep -f "$(swift build --show-bin-path "${@:2}")/CircadifyPackageTests.xctest"); do
            kill -KILL -- "-$runner" 2>/dev/null || kill -KILL "$runner"
        done
        echo "the test run did not end within $run_limit and was stopped"
        comm -23 <(sed -nE 's/^◇ Test ([^ ]+\)) started\.$/\1/p' "$1" | sort -u) \
                 <(sed -nE 's/^(✔|✘) Test ([^ ]+) .*(passed|failed) after.*/\2/p' "$1" | sort -u) |
            sed 's/^/FAIL: started and never ended: /'
    fi
    return "$rc"
}

# A test run's per-test lines counted (a parameterized test is one; a test that never
# ended counts as failed).
passed_tests() { grep -cE "^✔ Test .*\) (with [0-9]+ test cases? )?passed" "$1"; }
failed_tests() { grep -cE "^✘ Test .*\) (with [0-9]+ test cases? )?failed|^FAIL: started and never ended" "$1"; }

unit_tests() { # swift test, counted by its per-test lines
    { swift build --build-tests "${c_flags[@]}" 2>&1 && limited_test_run "$log/unit.raw" "${c_flags[@]}"; } |
        tee "$log/unit.raw" | grep -vE "^\[[0-9]+/[0-9]+\]|^◇ |passed after"
    local rc=${PIPESTATUS[0]}
    echo "unit: $(passed_tests "$log/unit.raw") passed, $(failed_tests "$log/unit.raw") failed"
    return "$rc"
}

# The unit tests again, built into .build-asan with AddressSanitizer on every target and
# UndefinedBehaviorSanitizer on the C ones (through clang; Swift has no UBSan on Linux).
# The CLI tests run the sanitized `circadify` beside the test runner. Any report aborts the
# process, so it fails its test. Leak checks are off here (the Swift runtime keeps its
# metadata for good); the fuzzers check the C core for leaks.
sanitized_tests() {
    local sanitized=(--sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize=function
        --scratch-path .build-asan "${c_flags[@]}")
    { swift build --build-tests "${sanitized[@]}" 2>&1 | grep -E "error|warning: unre"
      # The sanitizers print their own stack; Swift's backtracer, started on their abort,
      # hung here holding the output pipe open, so the suite never ended: it is off.
      SWIFT_BACKTRACE=enable=no \
      ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
          limited_test_run "$log/asan.raw" "${sanitized[@]}"; } | tee "$log/asan.raw" |
        grep -vE "^\[[0-9]+/[0-9]+\]|^◇ |passed after"
    local rc=${PIPESTATUS[0]} passed failed
    passed=$(passed_tests "$log/asan.raw")
    failed=$(failed_tests "$log/asan.raw")
    if ! grep -qE "^✔ Test run with [0-9]+ tests? .*passed" "$log/asan.raw" && [ "$failed" -eq 0 ]; then
        failed=1 # a build failure or a sanitizer abort counts
    fi
    if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ "$failed" -eq 0 ]; then
        failed=1 # every test ended, then the run hung (on its way out, say)
    fi
    echo "sanitized: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

suite unit "unit tests (swift test)" unit_tests
suite sanitized "unit tests under AddressSanitizer + UBSan (.build-asan)" sanitized_tests
suite fuzz "fuzzing (libFuzzer, ASan + UBSan; each target 60 s from the committed seeds)" \
    env FUZZ_SKIP_SETUP=1 Tests/Fuzz/run-fuzz.sh 60
suite symbols "C library symbols (libCCore.a exports only ccore_ names)" Tools/check-symbols.sh
suite consumer "consumer (a client package builds and runs against a tagged copy, by version)" \
    Tests/Consumer/run-consumer.sh
suite docs "documentation (DocC catalog builds with no warnings)" Tools/build-docs.sh
suite examples "the seeds' flows (circadify-examples on a replay camera)" Tools/examples/run-examples.sh
suite monitor "circadify monitor: a real Prometheus scraping it, promtool, JSON Lines, SIGTERM, systemd units" Tests/Monitor/run-monitor-checks.sh
suite browser "web preview in headless Chromium (circadify preview --input, Start scan, HR vs truth, overlay pixels)" Tests/Browser/run-preview-browser.sh
suite release "static release binary (Swift runtime and C libraries linked in; ldd, --help, a scan)" Tools/build-release.sh circadify circadify-latency
suite cpulse "the C example (c-pulse: a replay's pulse through the C API alone, make + cc)" Tools/examples/c-pulse/run-c-pulse.sh
suite arm64 "the C core on arm64 (cross-built, C tests under qemu-user, and natively)" Tools/arm64/run-arm64-tests.sh
suite vivid "kernel-driver suite (vivid in a QEMU guest)" Tests/Integration/run-vivid-suite.sh
suite sdk "the SDK on vivid (measureVitals, cancel, disconnect in the guest)" Tests/Integration/run-sdk-check.sh
suite scan "loopback scan (a ground-truth clip through vivid into circadify scan)" Tests/Integration/run-scan-loopback.sh
suite errors "camera error paths (circadify scan --device against vivid in the guest)" \
    Tests/Integration/run-scan-errors.sh
suite replug "circadify monitor through vivid's unplug and replug (in the guest)" Tests/Integration/run-monitor-replug.sh
suite latency "latency profiler (circadify-latency --device on vivid in the guest)" Tests/Integration/run-latency-guest.sh

# The failures again at the end, where the tail of a CI log shows them: the lines that name
# a failed test or its recorded issue (swift-testing's ✘, the shell suites' FAIL).
for name in "${names[@]}"; do
    case $name in unit) out=$log/unit.raw ;; sanitized) out=$log/asan.raw ;; *) out=$log/$name.txt ;; esac
    lines=$(grep -E "^✘ |^ *FAIL" "$out" 2>/dev/null | head -40)
    [ -z "$lines" ] || printf '== failures in %s\n%s\n' "$name" "$lines"
done

summary="" total_passed=0 total_failed=0
for i in "${!names[@]}"; do
    summary+="${summary:+; }${names[$i]}: ${passed[$i]} passed, ${failed[$i]} failed"
    total_passed=$((total_passed + passed[i]))
    total_failed=$((total_failed + failed[i]))
done
echo "$summary"
echo "total: $total_passed passed, $total_failed failed"
exit "$status"
