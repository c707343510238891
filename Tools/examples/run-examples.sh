#!/usr/bin/env bash
# Runs the seeds' flows (circadify-examples) on a replay camera: renders a still face clip
# with a known pulse and checks every flow behaves as its seed says and the scan reads the
# pulse within ±3 bpm. Prints `N passed, N failed` (one per check the program makes) for
# Tools/run-tests.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "FAIL examples: $1"; echo "0 passed, 1 failed"; exit 1; }
# CIRCADIFY_SWIFT_FLAGS: the C flags Tools/run-tests.sh builds with, so nothing is rebuilt.
read -r -a flags <<<"${CIRCADIFY_SWIFT_FLAGS:-}"
for product in circadify-examples circadify-groundtruth; do
    swift build "${flags[@]}" --product "$product" 2>&1 | grep -E "error|warning: " >&2
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail "swift build --product $product failed"
done
bin="$(swift build "${flags[@]}" --show-bin-path)"
clip_dir=.build/examples
mkdir -p "$clip_dir"
clip=$clip_dir/face-72bpm.y4m
[ -s "$clip" ] || "$bin/circadify-groundtruth" -o "$clip" --scenario still --seed 4 --duration 40 --hr 72 \
    --size 320x240 --quiet || fail "circadify-groundtruth could not render the clip"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$bin/circadify-examples" --input "$clip" --expect-hr 72 | tee "$out"
rc=${PIPESTATUS[0]}
passed=$(grep -c '^  ok: ' "$out")
failed=$(grep -c '^  FAILED: ' "$out")
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi # it stopped before a check
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ]
