#!/usr/bin/env bash
# Whole-pipeline benchmark: `circadify scan` against the plain Python pipeline
# (pos_pipeline.py: OpenCV decode + Haar face every 10th frame + POS + Welch)
# and vitallens's local POS (its own ONNX face detector, ffmpeg decode), on the
# same rendered face clips with a known heart rate, each run pinned to one core.
# Per tool and file: CPU per frame (user + sys from the OS, children included,
# divided by the frames the tool read), wall time, peak RSS and the heart rate
# it reports against the truth; medians of BENCH_RUNS runs, interleaved so a
# change of load hits every tool alike. Installs what it needs (apt: ffmpeg,
# time, python3-venv; a venv with pinned versions under .build-bench/peers-venv),
# builds circadify and circadify-groundtruth in release mode.
#
#   Tools/bench/pipeline-vs-peers.sh   # ~2.5 min (the first time: + venv, builds, clips)
#   BENCH_RUNS=5 BENCH_CPU=0 Tools/bench/pipeline-vs-peers.sh
#   BENCH_MODE=live Tools/bench/pipeline-vs-peers.sh   # ~1 min a run: a live scan's CPU share
#
# BENCH_MODE=live measures instead what a live 640x480 scan costs: `circadify
# scan --input CLIP --realtime`, the clip replayed at its frame rate as a camera
# delivers it, CPU time (user + sys) over wall time as a share of one core
# (target: under 2%), for the 640x480 MJPEG clips (with and without restart
# markers) and the Y4M one, BENCH_RUNS runs each (BENCH_SECONDS long); no peers.
# Kept in .build-bench/pipeline-results/live.txt.
#
# BENCH_RUNS (default 3) runs per tool and file; BENCH_CPU (default 1) the core;
# BENCH_PY_DETECT_WIDTH (default 320, our detector's width; 0 = the full frame)
# the width of the grey copy the plain pipeline's Haar cascade scans;
# BENCH_SEED (default 1) the person in the clips; BENCH_SECONDS (default 30)
# seconds measured: the clips are 2 s longer, `circadify scan --duration` and
# pos_pipeline.py --seconds read the first BENCH_SECONDS, vitallens the whole clip.
# Everything is kept in .build-bench/pipeline-results/ (report.txt, runs/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
SCRATCH="$ROOT/.build-bench"
VENV="$SCRATCH/peers-venv"
CLIPS="$SCRATCH/pipeline-clips"
OUT="$SCRATCH/pipeline-results"
RUNS="${BENCH_RUNS:-3}"
CPU="${BENCH_CPU:-1}"
SEED="${BENCH_SEED:-1}"
SECONDS_MEASURED="${BENCH_SECONDS:-30}"
PY_DETECT_WIDTH="${BENCH_PY_DETECT_WIDTH:-320}"
MODE="${BENCH_MODE:-files}"
CLIP_SECONDS=$((SECONDS_MEASURED + 2))
FPS=30

source "$ROOT/Tools/bench/lib.sh"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "pipeline-vs-peers.sh: BENCH_RUNS must be a positive integer" >&2; exit 2; }
[[ "$SECONDS_MEASURED" =~ ^[1-9][0-9]*$ ]] && [ "$SECONDS_MEASURED" -ge 10 ] ||
    { echo "pipeline-vs-peers.sh: BENCH_SECONDS must be an integer, at least 10" >&2; exit 2; }
[[ "$PY_DETECT_WIDTH" =~ ^[0-9]+$ ]] ||
    { echo "pipeline-vs-peers.sh: BENCH_PY_DETECT_WIDTH must be 0 (the full frame) or a width" >&2; exit 2; }
[ "$MODE" = files ] || [ "$MODE" = live ] ||
    { echo "pipeline-vs-peers.sh: BENCH_MODE must be files (the default) or live" >&2; exit 2; }
command -v swift >/dev/null || { echo "pipeline-vs-peers.sh: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
"$ROOT/Tools/setup.sh" python3 python3-venv ffmpeg time
taskset -c "$CPU" true 2>/dev/null || { echo "pipeline-vs-peers.sh: cannot pin to CPU $CPU (BENCH_CPU)" >&2; exit 2; }

# --- Python peers: pinned versions ---------------------------------------------
# The plain pipeline's packages first; vitallens on top, and if it cannot be
# installed the table says why instead of leaving a gap.
REQ_PY="$ROOT/Tools/bench/requirements-python-peer.txt"
REQ_VL="$ROOT/Tools/bench/requirements-vitallens.txt"
pip_install() { "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"; }
STAMP="$VENV/.requirements"
WANT="$(cat "$REQ_PY" "$REQ_VL" | sha256sum | cut -c1-16)"
if [ "$MODE" = files ] && { [ ! -x "$VENV/bin/python" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; }; then
    say "Python venv with pinned peers in ${VENV#"$ROOT"/}"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    pip_install -r "$REQ_PY"
    if pip_install -r "$REQ_VL" 2>"$SCRATCH/vitallens-install.log"; then
        echo "$WANT" >"$STAMP"
    else
        say "vitallens could not be installed (see .build-bench/vitallens-install.log); it is left out"
    fi
fi
PY="$VENV/bin/python"
VITALLENS=1
[ "$MODE" = live ] || "$PY" -c 'import vitallens' 2>/dev/null || VITALLENS=0

# --- build and clips -----------------------------------------------------------
BIN="$(build_release "$SCRATCH" pipeline-vs-peers.sh circadify circadify-groundtruth)"
mkdir -p "$CLIPS"
# FORMAT-SIZE[-rN]: -rN is an MJPEG stream with a restart marker every N MCUs, as
# many webcams send their frames (a Logitech C270: every 10); the same pixels.
CLIP_NAMES=(y4m-640x480 mjpeg-640x480 mjpeg-640x480-r10 mjpeg-1280x720)
clip_path() { # NAME -> the clip's file
    local format=${1%%-*} rest=${1#*-}
    echo "$CLIPS/still-seed$SEED-${CLIP_SECONDS}s-$rest.$format"
}
for name in "${CLIP_NAMES[@]}"; do
    file="$(clip_path "$name")"
    rest=${name#*-} restart=()
    [[ "$rest" == *-r* ]] && restart=(--restart "${rest##*-r}")
    if [ ! -s "$file" ] || [ ! -s "${file%.*}.json" ]; then
        say "rendering ${file#"$ROOT"/}"
        "$BIN/circadify-groundtruth" --scenario still --seed "$SEED" --size "${rest%%-*}" --fps "$FPS" \
            --duration "$CLIP_SECONDS" "${restart[@]}" -o "$file" --quiet
    fi
    # vitallens reads raw MJPEG as one JPEG image: the same JPEG frames in a
    # Matroska file (copied, not re-encoded) for it alone.
    if [ "${name%%-*}" = mjpeg ] && [ ! -s "${file%.*}.mkv" ]; then
        ffmpeg -v error -y -f mjpeg -framerate "$FPS" -i "$file" -c:v copy "${file%.*}.mkv"
    fi
done

# warm FILE: read it into the page cache first. The VM drops cold pages within
# minutes, and a 442 MB Y4M read back from disk costs the first tool ~0.9 s of
# system time the next one does not pay; a camera's buffers never touch a disk.
warm() { cat "$1" >/dev/null; }

# --- live mode: a realtime-paced scan's share of one core ------------------------
# A live camera delivers a frame every 33 ms and the scan idles in between; a
# file replayed with --realtime is paced the same way, so CPU time over wall
# time is the share of a core a live scan of that format takes.
if [ "$MODE" = live ]; then
    mkdir -p "$OUT"
    LIVE="$OUT/live.txt"
    {
        echo "live scan, realtime-paced replay, $SECONDS_MEASURED s, pinned to CPU $CPU, $RUNS run(s) each;" \
            "circadify $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
        echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "| clip | run | CPU s (user + sys) | wall s | share of one core |"
        echo "|---|---:|---:|---:|---:|"
    } | tee "$LIVE"
    for name in mjpeg-640x480 mjpeg-640x480-r10 y4m-640x480; do
        file="$(clip_path "$name")"
        for run in $(seq 1 "$RUNS"); do
            # From the page cache, as a camera's frames come from its buffers: read back
            # from disk, the Y4M clip (414 MB read) cost the scan about twice the CPU (README).
            warm "$file"
            /usr/bin/time -f '%U %S %e' -o "$OUT/live.time" taskset -c "$CPU" \
                "$BIN/circadify" scan --input "$file" --fps "$FPS" --duration "$SECONDS_MEASURED" --realtime --json \
                >"$OUT/live.out" 2>"$OUT/live.err" ||
                { cat "$OUT/live.err" >&2; echo "pipeline-vs-peers.sh: the live scan of $name failed" >&2; exit 1; }
            read -r user sys wall <"$OUT/live.time"
            awk -v n="$name" -v r="$run" -v u="$user" -v s="$sys" -v w="$wall" \
                'BEGIN { printf "| %s | %d | %.2f | %.1f | %.2f%% |\n", n, r, u + s, w, 100 * (u + s) / w }'
        done
    done | tee -a "$LIVE"
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); target: under 2% of one core" | tee -a "$LIVE"
    say "kept in ${LIVE#"$ROOT"/}"
    exit 0
fi

# --- versions ------------------------------------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT/runs"
{
    echo "circadify: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet HEAD -- Sources CCore Tools/circadify 2>/dev/null || echo ' (uncommitted changes)'), swift build -c release"
    echo "python: $("$PY" -c 'import sys; print(sys.version.split()[0])')"
    "$PY" - <<'EOF'
import importlib.metadata as m
names = ["opencv-python-headless", "numpy", "scipy", "vitallens", "vitallens-core", "onnxruntime", "prpy"]
def version(n):
    try:
        return m.version(n)
    except m.PackageNotFoundError:
        return "not installed"
print("python packages: " + ", ".join(f"{n} {version(n)}" for n in names))
EOF
    echo "plain Python pipeline: Haar cascade on a grey copy $([ "$PY_DETECT_WIDTH" = 0 ] && echo "at full size" || echo "$PY_DETECT_WIDTH px wide") every 10th frame"
    echo "ffmpeg (vitallens's decoder): $(ffmpeg -version | head -1 | cut -d' ' -f3)"
    echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); runs pinned to CPU $CPU"
} | tee "$OUT/versions.txt"
if [ "$VITALLENS" = 0 ]; then
    echo "vitallens: NOT RUN, it did not install: $(tail -n 3 "$SCRATCH/vitallens-install.log" 2>/dev/null | tr '\n' ' ')" |
        tee -a "$OUT/versions.txt"
fi

# --- runs ----------------------------------------------------------------------
# measure TOOL CLIP RUN COMMAND...: one run pinned to $CPU under GNU time
# (user, sys, wall, max RSS of the largest process in the tree), stdout kept.
measure() {
    local tool=$1 clip=$2 run=$3 base rc=0
    shift 3
    base="$OUT/runs/$tool.$clip.$run"
    /usr/bin/time -f '%U %S %e %M' -o "$base.time" taskset -c "$CPU" "$@" >"$base.out" 2>"$base.err" || rc=$?
    echo "$rc" >"$base.rc"
}
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$RUNS"); do
    for name in "${CLIP_NAMES[@]}"; do
        file="$(clip_path "$name")"
        say "run $run/$RUNS: $name"
        warm "$file"
        measure circadify "$name" "$run" "$BIN/circadify" scan --input "$file" --fps "$FPS" \
            --duration "$SECONDS_MEASURED" --json
        warm "$file"
        measure python "$name" "$run" "$PY" "$ROOT/Tools/bench/pos_pipeline.py" "$file" --fps "$FPS" \
            --seconds "$SECONDS_MEASURED" --detect-width "$PY_DETECT_WIDTH"
        if [ "$VITALLENS" = 1 ]; then
            vfile="$file"
            [ "${name%%-*}" = mjpeg ] && vfile="${file%.*}.mkv"
            warm "$vfile"
            measure vitallens "$name" "$run" "$PY" "$ROOT/Tools/bench/vitallens_peer.py" "$vfile" --fps "$FPS"
        fi
    done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

echo
args=()
for name in "${CLIP_NAMES[@]}"; do args+=(--clip "$name=$(clip_path "$name")"); done
"$PY" "$ROOT/Tools/bench/pipeline_report.py" "${args[@]}" --runs-dir "$OUT/runs" --seconds "$SECONDS_MEASURED" \
    --fps "$FPS" --cpu "$CPU" --load-before "$LOAD_BEFORE" --load-after "$LOAD_AFTER" --uptime "$(uptime)" |
    tee "$OUT/report.txt"
cat "$OUT/versions.txt" >>"$OUT/report.txt"
echo
say "results kept in ${OUT#"$ROOT"/}/ (report.txt, versions.txt, runs/)"
