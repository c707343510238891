#!/usr/bin/env bash
# CI for the C example: builds c-pulse with the C compiler alone (CCore/Makefile), renders
# face clips with a known pulse (circadify-groundtruth) and checks the rate it reads, within
# ±3 bpm; a pulse-free face and a missing file must give no rate. Then links the same
# program against SwiftPM's libCCore.a, the other way to get the core. Prints
# `c-pulse: N passed, N failed` for Tools/run-tests.sh.
set -uo pipefail
cd "$(dirname "$0")/../../.."

passed=0 failed=0
ok() { echo "  ok: $1"; passed=$((passed + 1)); }
bad() { echo "  FAILED: $1"; failed=$((failed + 1)); }
finish() { echo "c-pulse: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

Tools/setup.sh gcc make || { bad "installing the build packages"; finish; }
out=$PWD/.build/c-pulse
make -s -C Tools/examples/c-pulse BUILD="$out" >/dev/null || { bad "make (c-pulse against libccore.a)"; finish; }
ok "built with make and cc: $out/c-pulse"

# The clips: the generator is a Swift package product (its C library, built by SwiftPM).
read -r -a flags <<<"${CIRCADIFY_SWIFT_FLAGS:-}"
swift build "${flags[@]}" --product circadify-groundtruth 2>&1 | grep -E "error:|warning: " >&2
[ "${PIPESTATUS[0]}" -eq 0 ] || { bad "swift build --product circadify-groundtruth"; finish; }
generate="$(swift build "${flags[@]}" --show-bin-path)/circadify-groundtruth"
clips=$out/clips
mkdir -p "$clips"
render() { # file args...
    local file=$1
    shift
    [ -s "$clips/$file" ] || "$generate" -o "$clips/$file" --duration 20 --quiet "$@" ||
        { bad "circadify-groundtruth $*"; finish; }
}
render still-72.y4m --scenario still --seed 4 --hr 72 --size 320x240
render still-95.mjpeg --scenario still --seed 9 --hr 95 --size 640x480
render nopulse.y4m --scenario nopulse --seed 3 --size 320x240

# expect PROGRAM CLIP TRUE-BPM [OPTIONS...]: the rate printed lies within ±3 bpm.
expect() {
    local program=$1 clip=$2 truth=$3
    shift 3
    local text rate
    text=$("$program" "$@" "$clips/$clip" 2>&1)
    echo "$text" | sed 's/^/    /'
    rate=$(sed -nE 's/^heart rate +([0-9.]+) bpm$/\1/p' <<<"$text")
    if [ -n "$rate" ] && awk -v r="$rate" -v t="$truth" 'BEGIN { d = r - t; exit !(d <= 3 && d >= -3) }'; then
        ok "$(basename "$program")${*:+ $*} $clip: $rate bpm (truth $truth)"
    else
        bad "$(basename "$program")${*:+ $*} $clip: '${rate:-no rate}', truth $truth ± 3"
    fi
}

expect "$out/c-pulse" still-72.y4m 72
expect "$out/c-pulse" still-72.y4m 72 --method green
expect "$out/c-pulse" still-95.mjpeg 95

# No pulse, no number: a pulse-free face and a missing file exit 1 with a reason.
text=$("$out/c-pulse" "$clips/nopulse.y4m" 2>&1)
rc=$?
echo "    $text"
if [ "$rc" -eq 1 ] && ! grep -q '^heart rate' <<<"$text" && grep -q 'no reliable pulse' <<<"$text"; then
    ok "pulse-free face: no rate (exit 1)"
else
    bad "pulse-free face gave exit $rc: $text"
fi
text=$("$out/c-pulse" "$clips/missing.y4m" 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'missing.y4m.*ENOENT' <<<"$text"; then ok "missing file: $text"
else bad "missing file gave exit $rc: $text"; fi

# The other way to get the core: SwiftPM's static library product, same program.
swift build "${flags[@]}" --product CCore >/dev/null 2>&1 || { bad "swift build --product CCore"; finish; }
archive="$(swift build "${flags[@]}" --show-bin-path)/libCCore.a"
mkdir -p "$out/swiftpm"
if make -s -C Tools/examples/c-pulse BUILD="$out/swiftpm" CCORE_LIB="$archive" >/dev/null; then
    expect "$out/swiftpm/c-pulse" still-72.y4m 72
else
    bad "make CCORE_LIB=$archive"
fi
finish
