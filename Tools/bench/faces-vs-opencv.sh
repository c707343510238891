#!/usr/bin/env bash
# Face detection: the C core's cascade detector against OpenCV's own
# CascadeClassifier, same XML file, same parameters, same pixels, same core,
# one run. OpenCV is only the benchmark peer (a Python venv), never a runtime
# dependency. Installs what it needs (opencv-data via Tools/setup.sh; a venv
# with numpy + opencv-python-headless 4.x under .build-bench/faces-venv,
# since OpenCV 5 dropped CascadeClassifier from the main module), builds in
# release mode and prints, per image at full size and at 320x240: faces
# found by each, the best-match IoU of each OpenCV face, median time per call
# of each and the ratio.
#
#   Tools/bench/faces-vs-opencv.sh                       # default LBP cascade
#   Tools/bench/faces-vs-opencv.sh /usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
#   FACE_RUNS=51 Tools/bench/faces-vs-opencv.sh          # more calls per median
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
SCRATCH="$ROOT/.build-bench"
VENV="$SCRATCH/faces-venv"
RUNS="${FACE_RUNS:-21}"
CASCADES=("$@")
[ ${#CASCADES[@]} -eq 0 ] && CASCADES=(/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml)

source "$ROOT/Tools/bench/lib.sh"

command -v swift >/dev/null || { echo "faces-vs-opencv.sh: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
"$ROOT/Tools/setup.sh" python3 python3-venv

if ! { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import numpy, cv2; cv2.CascadeClassifier' 2>/dev/null; }; then
    say "Python venv with numpy + opencv-python-headless<5 in $VENV"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check numpy "opencv-python-headless<5"
fi

BIN="$(build_release "$SCRATCH" faces-vs-opencv.sh ccore-facebench circadify-groundtruth)"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/faces-bench.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
say "ground-truth frames in $TMP"
for seed in 1 2 3; do
    "$BIN/circadify-groundtruth" --seed "$seed" --frame 45 --size 640x480 -o "$TMP/groundtruth-seed$seed.ppm" --quiet
    "$BIN/circadify-groundtruth" --seed "$seed" --frame 45 --size 320x240 -o "$TMP/groundtruth-seed$seed-320x240.ppm" --quiet
done

for cascade in "${CASCADES[@]}"; do
    "$VENV/bin/python" "$ROOT/Tools/bench/faces_vs_opencv.py" --facebench "$BIN/ccore-facebench" --cascade "$cascade" \
        --runs "$RUNS" --work "$TMP" "$ROOT"/Tests/Fixtures/faces/*.jpg "$TMP"/groundtruth-*.ppm
done
