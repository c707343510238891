#!/usr/bin/env bash
# Benchmark of the C core's per-frame path against the usual Python pipeline,
# on the same frames, in one run. Installs what it needs (Python venv with
# NumPy + OpenCV under .build-bench/venv; apt packages if missing), builds in
# release mode, generates the clips, runs both sides pinned to one core and
# prints the side-by-side table with the DESIGN.md section 7 targets. The C
# side runs with the camera path's capture configuration (detector thumbnail
# 320 pixels wide at the frame's aspect, every 3rd frame).
#
#   Tools/bench/run-bench.sh            # about 1-2 minutes on 2 cores
#   BENCH_SECONDS=3 Tools/bench/run-bench.sh   # longer timing per line
#
# Results (JSON + the printed tables) are kept in .build-bench/bench-results/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
SCRATCH="$ROOT/.build-bench"
VENV="$SCRATCH/venv"
OUT="$SCRATCH/bench-results"
SECS="${BENCH_SECONDS:-1.5}"
FRAMES="${BENCH_FRAMES:-60}"

source "$ROOT/Tools/bench/lib.sh"
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }
apt_install() {
    say "apt-get install $*"
    as_root apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# --- prerequisites -----------------------------------------------------------
command -v python3 >/dev/null || apt_install python3
command -v swift >/dev/null || { echo "run-bench.sh: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
[ -e /usr/include/turbojpeg.h ] || apt_install libturbojpeg0-dev
[ -e /usr/include/jpeglib.h ] || apt_install libjpeg62-turbo-dev

# Pinned versions (requirements-python-peer.txt: OpenCV 4.x), so runs compare;
# the venv is rebuilt when the pins change.
REQ="$ROOT/Tools/bench/requirements-python-peer.txt"
WANT="$(sha256sum "$REQ" | cut -c1-16)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.requirements" 2>/dev/null)" != "$WANT" ]; then
    say "Python venv with the pinned numpy + opencv-python-headless in $VENV"
    rm -rf "$VENV"
    if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
        # Debian's python3 needs python3-venv (ensurepip) for this.
        rm -rf "$VENV"
        apt_install python3-venv
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ"
    echo "$WANT" >"$VENV/.requirements"
fi
PY="$VENV/bin/python"
say "$("$PY" -c 'import sys, cv2, numpy; print(f"Python {sys.version.split()[0]}, OpenCV {cv2.__version__}, NumPy {numpy.__version__}")')"

# --- build -------------------------------------------------------------------
BIN="$(build_release "$SCRATCH" run-bench.sh ccore-bench ccore-testclip)"

# --- clips -------------------------------------------------------------------
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ccore-bench.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
say "generating $FRAMES-frame clips in $TMP"
pids=()
"$BIN/ccore-testclip" -o "$TMP/mjpeg-1280x720.mjpeg" --format mjpeg --size 1280x720 --frames "$FRAMES" & pids+=($!)
"$BIN/ccore-testclip" -o "$TMP/yuyv-640x480.yuyv" --format yuyv --size 640x480 --frames "$FRAMES" & pids+=($!)
"$BIN/ccore-testclip" -o "$TMP/mjpeg-640x480.mjpeg" --format mjpeg --size 640x480 --frames "$FRAMES" & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid" || { echo "run-bench.sh: ccore-testclip failed" >&2; exit 1; }; done

# Both sides on the same core: the highest-numbered one this process may use.
CPU="$("$PY" -c 'import os; print(max(os.sched_getaffinity(0)))')"
INPUTS=(--yuyv "$TMP/yuyv-640x480.yuyv" --size 640x480 --mjpeg "$TMP/mjpeg-1280x720.mjpeg"
        --mjpeg "$TMP/mjpeg-640x480.mjpeg")
mkdir -p "$OUT"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"

say "C core: ccore-bench on CPU $CPU (${SECS}s per line)"
"$BIN/ccore-bench" "${INPUTS[@]}" --cpu "$CPU" --seconds "$SECS" --json-out "$OUT/ccore.json" | tee "$OUT/ccore.txt"
echo
say "Python peer: python_peer.py on CPU $CPU"
"$PY" Tools/bench/python_peer.py "${INPUTS[@]}" --cpu "$CPU" --seconds "$SECS" --json > "$OUT/python.json"

LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
echo
# The report's header names the Python peer's versions (OpenCV, NumPy).
"$PY" Tools/bench/report.py "$OUT/ccore.json" "$OUT/python.json" \
    --load-before "$LOAD_BEFORE" --load-after "$LOAD_AFTER" | tee "$OUT/report.txt"
echo
say "results kept in ${OUT#"$ROOT"/}/ (ccore.json, python.json, ccore.txt, report.txt)"
