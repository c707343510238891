#!/usr/bin/env bash
# Long run of `circadify monitor --input CLIP --loop`: samples its resident memory (VmRSS,
# split into anonymous, file-backed and shared pages) and open descriptors (/proc/PID/fd)
# every --interval seconds for --duration seconds,
# then stops it with SIGTERM and prints the drift after the warm-up. Target: RSS drift
# under 1 MB after warm-up, descriptor count flat.
# The RSS moves within a band of a few MB: the allocator hands freed memory back to the
# kernel (drops of 2-3 MB, minutes apart) and takes it again. Two single samples measure
# where in that band each fell, not growth. So the drift is taken between the peaks of
# the first and last 10-minute windows after the warm-up (the band's top, the most the
# allocator held), sampled every 5 s by default.
#
#   Tools/bench/monitor-soak.sh [--duration S] [--interval S] [--warmup S] [--clip FILE]
#                               [--metrics] [--bin DIR] [--out DIR]
#
#   --duration S   how long the monitor runs (default 3600)
#   --interval S   seconds between samples (default 5)
#   --warmup S     samples before this are the warm-up (default 300)
#   --clip FILE    the file replayed (default: a 30 s 640x480 still face clip, rendered once)
#   --metrics      also serve metrics (127.0.0.1, a free port) and scrape them each sample
#   --bin DIR      where circadify (and circadify-groundtruth) are (default: a release build)
#   --out DIR      results: samples.tsv, monitor.jsonl, monitor.log, summary.txt
#                  (default .build-bench/monitor-soak)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
duration=3600 interval=5 warmup=300 clip="" metrics=0 bin="" out="$repo/.build-bench/monitor-soak"
while [ $# -gt 0 ]; do
    case $1 in
    --duration) duration=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --clip) clip=$2; shift 2 ;;
    --metrics) metrics=1; shift ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--duration S] [--interval S] [--warmup S] [--clip FILE] [--metrics] [--bin DIR] [--out DIR]" >&2
       exit 2 ;;
    esac
done
say() { printf '==> %s\n' "$*" >&2; }

if [ -z "$bin" ]; then
    say "swift build -c release (circadify, circadify-groundtruth)"
    for product in circadify circadify-groundtruth; do
        swift build -c release --product "$product" >/dev/null
    done
    bin=$(swift build -c release --show-bin-path)
fi
mkdir -p "$out"
if [ -z "$clip" ]; then
    clip=$out/still-640x480-30s.y4m
    [ -s "$clip" ] || "$bin/circadify-groundtruth" --scenario still --seed 1 --size 640x480 --fps 30 --duration 30 \
        --hr 72 --quiet -o "$clip"
fi
# The monitor runs from a copy, so a rebuild during the run changes nothing under it.
runner=$out/circadify
cp "$bin/circadify" "$runner"

port=""
args=(monitor --input "$clip" --loop)
if [ "$metrics" -eq 1 ]; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    args+=(--metrics "127.0.0.1:$port")
fi
say "circadify ${args[*]} for ${duration} s, a sample every ${interval} s"
"$runner" "${args[@]}" >"$out/monitor.jsonl" 2>"$out/monitor.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT

samples=$out/samples.tsv
# RSS split as the kernel counts it: anonymous (heap, stacks: what a leak grows),
# file-backed (library code and data paged in as new paths first run) and shared memory.
printf 'seconds\trss_kb\thwm_kb\tfds\tthreads\tanon_kb\tfile_kb\tshmem_kb\n' >"$samples"
start=$(date +%s)
while :; do
    kill -0 "$pid" 2>/dev/null || { echo "monitor-soak: the monitor exited early (see $out/monitor.log)" >&2; exit 1; }
    now=$(( $(date +%s) - start ))
    # One read of the status file, so the fields of a sample belong together.
    read -r rss hwm threads anon file shmem < <(awk '
        /^VmRSS:/ {r = $2} /^VmHWM:/ {h = $2} /^Threads:/ {t = $2}
        /^RssAnon:/ {a = $2} /^RssFile:/ {f = $2} /^RssShmem:/ {s = $2}
        END {print r, h, t, a, f, s}' "/proc/$pid/status")
    fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
    # The endpoint may not listen yet at the first sample: only that scrape is retried.
    retry=()
    [ "$now" -eq 0 ] && retry=(--retry 10 --retry-connrefused --retry-delay 1)
    [ -n "$port" ] && curl -fsS ${retry[@]+"${retry[@]}"} "http://127.0.0.1:$port/metrics" >/dev/null
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$now" "$rss" "$hwm" "$fds" "$threads" "$anon" "$file" "$shmem" \
        >>"$samples"
    [ "$now" -ge "$duration" ] && break
    sleep "$interval"
done

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
trap - EXIT
python3 - "$samples" "$out/monitor.jsonl" "$warmup" "$status" <<'EOF' | tee "$out/summary.txt"
import json, sys
samples_path, lines_path, warmup, status = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
rows = [list(map(int, line.split("\t"))) for line in open(samples_path).read().splitlines()[1:]]
after = [r for r in rows if r[0] >= warmup] or rows[-1:]
t = [r[0] for r in after]
rss = [r[1] for r in after]
n = len(after)
slope = 0.0
if n > 1:
    mt, mr = sum(t) / n, sum(rss) / n
    den = sum((x - mt) ** 2 for x in t)
    slope = sum((x - mt) * (y - mr) for x, y in zip(t, rss)) / den * 3600 if den else 0.0
types = {}
for line in open(lines_path):
    try:
        kind = json.loads(line)["type"]
    except (ValueError, KeyError):
        kind = "unparsable"
    types[kind] = types.get(kind, 0) + 1
fds = [r[3] for r in rows]
print(f"ran {rows[-1][0]} s, {len(rows)} samples; warm-up {int(warmup)} s")
print(f"RSS after warm-up: first {after[0][1]} kB, last {after[-1][1]} kB, min {min(rss)} kB, max {max(rss)} kB")
# Peaks of 10-minute windows after the warm-up: the top of the band the RSS moves in.
span = 600
windows = [[r for r in after if start <= r[0] < start + span] for start in range(int(warmup), int(t[-1]) + 1, span)]
windows = [w for w in windows if w and w[-1][0] - w[0][0] >= span * 0.8]
if len(windows) >= 2:
    peaks = [max(r[1] for r in w) for w in windows]
    anon_peaks = [max(r[5] for r in w) for w in windows]
    print(f"RSS drift after warm-up: {peaks[-1] - peaks[0]:+d} kB (peak of the last 10 min - peak of the first); "
          f"target < 1024 kB; anonymous {anon_peaks[-1] - anon_peaks[0]:+d} kB")
    print("peaks of each 10 min after warm-up (kB): " + ", ".join(map(str, peaks)))
else:
    print("RSS drift after warm-up: the run is too short for two 10-minute windows")
print(f"single samples: last - first {after[-1][1] - after[0][1]:+d} kB, trend {slope:+.0f} kB/hour "
      f"(least squares), range {max(rss) - min(rss)} kB (the band)")
print(f"RSS drift by kind: anonymous {after[-1][5] - after[0][5]:+d} kB, file-backed {after[-1][6] - after[0][6]:+d} kB, "
      f"shared {after[-1][7] - after[0][7]:+d} kB (last: {after[-1][5]}, {after[-1][6]} and {after[-1][7]} kB)")
print(f"peak RSS (VmHWM): {rows[-1][2]} kB; threads {min(r[4] for r in rows)}-{max(r[4] for r in rows)}")
print(f"open descriptors: min {min(fds)}, max {max(fds)}, first {fds[0]}, last {fds[-1]}")
print("lines by type: " + ", ".join(f"{k} {v}" for k, v in sorted(types.items())))
print(f"exit status after SIGTERM: {status}")
EOF
