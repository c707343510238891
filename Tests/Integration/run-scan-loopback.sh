#!/bin/bash
# End-to-end scan through a real V4L2 driver: renders a still ground-truth face clip with a
# known heart rate, plays it into vivid's output->capture loopback inside the QEMU guest
# (scan-loopback.sh, vivid-feeder) and runs `circadify scan --device CAPTURE --duration S
# --json` on the capture node; passes if the reported heart rate is within ±3 bpm of the
# clip's mean heart rate, and if the scan kept up with the camera: it must end within 20 s
# more than the measurement (start, settling), not fall ever further behind.
#
#   Tests/Integration/run-scan-loopback.sh [--hr BPM] [--seed N] [--duration S]
#
# Prints `PASS scan-loopback` or `FAIL scan-loopback: reason`, then `N passed, N failed`,
# like the vivid suite (Tools/run-tests.sh counts both). Exit 0 on pass, 1 on failure.
# Builds in release (TCG runs -O0 code too slowly to keep up with 60 Hz); the clip goes to
# .build-vm/scan-loopback/, which the guest reads through the host root.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"

hr=72 seed=3 duration=20
usage() { echo "usage: $0 [--hr BPM] [--seed N] [--duration S]" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
    [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage
    case $1 in
    --hr) hr=$2 ;;
    --seed) seed=$2 ;;
    --duration) duration=$2 ;;
    *) usage ;;
    esac
    shift 2
done

readonly name=scan-loopback
info() { echo "    $*"; }
finish() { # pass|fail [reason]
    if [[ $1 == pass ]]; then
        echo "PASS $name"
        echo "1 passed, 0 failed"
        exit 0
    fi
    echo "FAIL $name: $2"
    echo "0 passed, 1 failed"
    exit 1
}

# --- build --------------------------------------------------------------------------------
for product in circadify vivid-feeder circadify-groundtruth; do
    if ! swift build -c release --product "$product" >&2; then
        finish fail "swift build -c release --product $product failed"
    fi
done
bin=$(swift build -c release --show-bin-path)
circadify=$bin/circadify
# An unknown subcommand with --help still exits 0 (the top-level help), so look for its usage.
if ! "$circadify" scan --help 2>/dev/null | grep -q '^USAGE: circadify scan\b'; then
    finish fail "$circadify has no 'scan' command (circadify scan --help shows no 'USAGE: circadify scan')"
fi

# --- clip ---------------------------------------------------------------------------------
# Still and clean, long enough for the feed to settle, the CLI to start under emulation and
# the scan to run without the clip looping (a loop would break the pulse's phase).
clip_dir=$repo/.build-vm/$name
mkdir -p "$clip_dir"
clip=$clip_dir/still-hr$hr-seed$seed.y4m
truth=${clip%.y4m}.json
clip_seconds=$((duration + 20))
if ! "$bin/circadify-groundtruth" --scenario still --seed "$seed" --size 640x480 --fps 30 \
    --duration "$clip_seconds" --hr "$hr" --quiet -o "$clip" --truth "$truth" >&2; then
    finish fail "circadify-groundtruth could not render the clip"
fi
truth_hr=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meanHeartRate"])' "$truth")
info "clip: $clip (still, seed $seed, ${clip_seconds} s, mean heart rate $truth_hr bpm)"

# --- scan in the guest ----------------------------------------------------------------------
out=$(mktemp "${TMPDIR:-/tmp}/$name.XXXXXX")
err=$(mktemp "${TMPDIR:-/tmp}/$name.XXXXXX")
trap 'rm -f "$out" "$err"' EXIT
# stdout (the JSON) to $out; stderr shown as it comes and kept in $err for the timing.
set +e
VM_TIMEOUT=${VM_TIMEOUT:-$((duration * 4 + 180))} \
    Tools/vm/run-in-guest.sh -- Tests/Integration/scan-loopback.sh "$clip" -- \
    "$circadify" scan --device @CAPTURE@ --duration "$duration" --json 2>&1 >"$out" | tee "$err" >&2
rc=${PIPESTATUS[0]}
set -e
case $rc in
124) finish fail "the guest timed out (VM_TIMEOUT)" ;;
125) finish fail "the VM harness failed (see its messages above)" ;;
3) finish fail "vivid-feeder failed (see its messages above)" ;;
esac
info "scan exit status $rc, stdout: $(head -c 600 "$out")"
scan_seconds=$(sed -n 's/^scan-loopback: the command took \([0-9.]*\) s$/\1/p' "$err" | tail -1)
[[ -n $scan_seconds ]] || finish fail "the guest did not report how long the scan took"
info "the scan took $scan_seconds s for a $duration s measurement"
if awk -v t="$scan_seconds" -v d="$duration" 'BEGIN { exit !(t > d + 20) }'; then
    finish fail "the scan took $scan_seconds s for a $duration s measurement: it fell behind the camera"
fi

# --- check ----------------------------------------------------------------------------------
verdict=$(python3 - "$out" "$truth_hr" "$rc" <<'PY'
import json, math, sys
text = open(sys.argv[1]).read().strip()
truth, rc = float(sys.argv[2]), int(sys.argv[3])
try:
    result = json.loads(text)
except ValueError:
    print(f"fail scan (exit {rc}) did not print exactly one JSON object")
    sys.exit()
if not isinstance(result, dict):
    print(f"fail scan printed JSON that is not an object")
elif "error" in result:
    print(f"fail scan reported {result.get('error')}: {result.get('message')} (retryable {result.get('retryable')})")
elif rc != 0:
    print(f"fail scan exited {rc} without an error object")
else:
    hr = result.get("heartRate")
    if isinstance(hr, bool) or not isinstance(hr, (int, float)) or not math.isfinite(hr):
        print(f"fail heartRate is {hr!r}, not a number")
    elif abs(hr - truth) > 3:
        print(f"fail heartRate {hr} bpm is {abs(hr - truth):.2f} bpm from the truth {truth} bpm (allowed 3)")
    else:
        print(f"pass heartRate {hr} bpm, truth {truth} bpm (error {hr - truth:+.2f}), confidence {result.get('confidence')}")
PY
)
case $verdict in
pass*) info "${verdict#pass }"; finish pass ;;
fail*) finish fail "${verdict#fail }" ;;
*) finish fail "could not check the scan's output: $verdict" ;;
esac
