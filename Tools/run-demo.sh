#!/usr/bin/env bash
# The main job: installs what the build needs, builds the `circadify` CLI,
# lists the cameras, then runs a source through the realtime core and prints
# the per-frame samples. With no arguments it replays the bundled clip;
# otherwise the arguments go to `circadify samples` (e.g. --device /dev/video0).
set -euo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh
swift build -c release --product circadify 2>&1 | grep -vE "^\[[0-9]+/[0-9]+\]" >&2
bin="$(swift build -c release --show-bin-path)/circadify"

"$bin" devices
echo
if [ $# -eq 0 ]; then
    set -- --input Tools/clips/demo.mjpeg --every 10
fi
exec "$bin" samples "$@"
