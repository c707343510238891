#!/usr/bin/env bash
# The main job: installs what the build needs, builds the `circadify` CLI, lists the
# cameras, then runs a whole measurement with `circadify scan`.
#
# With no arguments it scans the demo clip: a face video with a known pulse (72 bpm),
# rendered once by the bundled ground-truth generator (Tools/groundtruth) from the NASA
# portrait compiled into it, so a machine without a camera shows the whole pipeline.
# Otherwise the arguments go to `circadify scan` (e.g. --device /dev/video0, --json).
set -euo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh
for product in circadify circadify-groundtruth; do
    swift build -c release --product "$product" 2>&1 | grep -vE "^\[[0-9]+/[0-9]+\]" >&2
done
bin="$(swift build -c release --show-bin-path)"

"$bin/circadify" devices
echo
if [ $# -gt 0 ]; then
    exec "$bin/circadify" scan "$@"
fi

clip=.build/demo/face-72bpm.y4m
if [ ! -s "$clip" ]; then
    mkdir -p "$(dirname "$clip")"
    echo "Rendering the demo clip ($clip: 25 s, 640x480, pulse 72 bpm, breathing 15 /min)..."
    "$bin/circadify-groundtruth" -o "$clip" --scenario still --seed 4 --duration 25 --hr 72 --rr 15 --quiet
fi
echo "Scanning the demo clip (truth: 72 bpm, 15 breaths/min):"
exec "$bin/circadify" scan --input "$clip" --duration 20
