#!/usr/bin/env bash
# `circadify monitor` against real clients: a real Prometheus server (Debian's `prometheus`
# package, installed if missing) scrapes the monitor replaying a generated face clip in a
# loop (MJPEG with a restart marker every 10 MCUs, as many webcams send it), and its HTTP
# API (/api/v1/query) is asked what it stored; `promtool check metrics`
# lints the endpoint's text; the JSON Lines stream is checked against its documented shape;
# SIGTERM must give exit 0 after the "stopped" line; the systemd units pass
# `systemd-analyze verify` (where systemd-analyze exists).
#
#   Tests/Monitor/run-monitor-checks.sh
#
# Prints `PASS name` / `FAIL name: reason` per check and closes with `N passed, N failed`
# (Tools/run-tests.sh counts it). Exit 0 when all passed.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
info() { echo "    $*"; }
give_up() { fail setup "$1"; echo "$passed passed, $failed failed"; exit 1; }

Tools/setup.sh prometheus >&2 || give_up "could not install Debian's prometheus package"
command -v promtool >/dev/null || give_up "promtool is missing (Debian's prometheus package provides it)"
# CIRCADIFY_SWIFT_FLAGS: the C flags Tools/run-tests.sh builds with, so nothing is rebuilt.
read -r -a flags <<<"${CIRCADIFY_SWIFT_FLAGS:-}"
for product in circadify circadify-groundtruth; do
    swift build "${flags[@]}" --product "$product" 2>&1 | grep -E "error:" >&2
    [ "${PIPESTATUS[0]}" -eq 0 ] || give_up "swift build --product $product failed"
done
bin=$(swift build "${flags[@]}" --show-bin-path)

work=$(mktemp -d)
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

clip=$work/still.mjpeg
"$bin/circadify-groundtruth" --scenario still --seed 3 --size 320x240 --fps 30 --duration 10 --hr 68 --restart 10 \
    --quiet -o "$clip" || give_up "circadify-groundtruth could not render the clip"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
metrics_port=$(free_port)
prom_port=$(free_port)

# Waits up to $2 seconds for command $1 (a string, eval'd) to succeed.
wait_for() { # command seconds
    local deadline=$(($(date +%s) + $2))
    until eval "$1" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.5
    done
}

# --- the monitor, looping the clip, with its metrics endpoint ------------------------------
"$bin/circadify" monitor --input "$clip" --loop --metrics "127.0.0.1:$metrics_port" \
    >"$work/monitor.jsonl" 2>"$work/monitor.log" &
monitor=$!
pids+=("$monitor")
wait_for "curl -fsS http://127.0.0.1:$metrics_port/metrics" 60 ||
    give_up "the metrics endpoint never answered: $(tail -3 "$work/monitor.log")"

# --- a real Prometheus scraping it every second ------------------------------------------------
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: circadify
    static_configs:
      - targets: ["127.0.0.1:$metrics_port"]
YML
promtool check config "$work/prometheus.yml" >"$work/promtool-config.out" 2>&1 ||
    give_up "promtool check config: $(cat "$work/promtool-config.out")"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
pids+=("$!")
api=http://127.0.0.1:$prom_port
wait_for "curl -fsS $api/-/ready" 60 || give_up "Prometheus did not become ready: $(tail -3 "$work/prometheus.log")"
info "$(prometheus --version 2>&1 | head -1)"

# The value of a PromQL expression as Prometheus answers it: the first sample's value, or
# "none" for an empty result.
query() { # promql
    curl -fsS --get "$api/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
answer = json.load(sys.stdin)
assert answer["status"] == "success", answer
result = answer["data"]["result"]
print(result[0]["value"][1] if result else "none")'
}
# Waits for the first live estimate (about 5 s of video) and a few scrapes after it.
wait_for 'grep -q "\"type\":\"estimate\"" "$work/monitor.jsonl"' 90 || info "no estimate line within 90 s"
wait_for '[ "$(query "count_over_time(circadify_frames_total[1m])")" != none ] &&
          [ "$(query "count_over_time(circadify_frames_total[1m])")" -ge 3 ]' 60 ||
    info "fewer than 3 scrapes stored within 60 s"

up=$(query 'up{job="circadify"}')
[ "$up" = 1 ] && pass prometheus-target-up || fail prometheus-target-up "up{job=\"circadify\"} is $up"

first=$(query 'circadify_frames_total')
sleep 3
second=$(query 'circadify_frames_total')
info "circadify_frames_total as stored: $first, then $second 3 s later"
if [ "$first" != none ] && python3 -c "import sys; sys.exit(not float('$second') > float('$first') > 0)"; then
    pass prometheus-frames-increase
else
    fail prometheus-frames-increase "circadify_frames_total went from $first to $second"
fi

# Frames that make no thumbnail (two in three) are decoded from the regions' restart intervals
# down once the face is tracked; the others, and those before the first regions, from the top.
# One expression, so both counts come from the same scrape.
share=$(query 'circadify_frames_decoded_from_restart_markers_total / circadify_frames_total')
info "circadify_frames_decoded_from_restart_markers_total / circadify_frames_total as stored: $share"
if [ "$share" != none ] && python3 -c "import sys; sys.exit(not 0.4 <= float('$share') <= 0.7)"; then
    pass prometheus-restart-marker-decodes
else
    fail prometheus-restart-marker-decodes "share of frames decoded from restart markers $share (expected 0.4-0.7)"
fi

buckets=$(query 'count(circadify_stage_latency_seconds_bucket{stage="end_to_end"})')
p99=$(query 'histogram_quantile(0.99, sum by (le) (rate(circadify_stage_latency_seconds_bucket{stage="end_to_end"}[20s])))')
timed=$(query 'circadify_stage_latency_seconds_count{stage="end_to_end"}')
info "end-to-end latency: $buckets buckets stored, $timed frames timed, p99 $p99 s over 20 s"
if [ "$buckets" = 15 ] && [ "$timed" != none ] && [ "$p99" != none ] && [ "$p99" != NaN ] &&
    python3 -c "import sys; sys.exit(not float('$timed') > 0)"; then
    pass prometheus-latency-histogram
else
    fail prometheus-latency-histogram "buckets $buckets, count $timed, p99 $p99"
fi

ok=$(query 'circadify_validation_status{code="ok"}')
total=$(query 'sum(circadify_validation_status)')
measured=$(query 'circadify_outcomes_total{outcome="measured"}')
info "validation ok=$ok (sum over codes $total); outcomes measured=$measured"
if [ "$ok" = 1 ] && [ "$total" = 1 ] && [ "$measured" != none ] && python3 -c "import sys; sys.exit(not float('$measured') >= 1)"; then
    pass prometheus-validation-and-outcomes
else
    fail prometheus-validation-and-outcomes "ok=$ok, sum=$total, measured=$measured"
fi

vitals=$(query 'count({__name__=~"circadify_(pulse|breathing|hrv).*"})')
[ "$vitals" = none ] && pass prometheus-no-vitals-by-default ||
    fail prometheus-no-vitals-by-default "Prometheus stored $vitals vital-sign series without --export-vitals"

# --- promtool lints the endpoint's text --------------------------------------------------------
curl -fsS "http://127.0.0.1:$metrics_port/metrics" >"$work/metrics.txt"
if promtool check metrics <"$work/metrics.txt" >"$work/promtool.out" 2>&1; then
    pass promtool-check-metrics
    info "promtool check metrics: $(wc -l <"$work/metrics.txt") lines, $(grep -c '^# TYPE' "$work/metrics.txt") metrics, no problem"
else
    fail promtool-check-metrics "$(head -c 600 "$work/promtool.out")"
fi

code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$metrics_port/other")
[ "$code" = 404 ] && pass endpoint-unknown-path || fail endpoint-unknown-path "GET /other answered $code"

# --- a client that opens connections and never finishes a request (slowloris) ---------------
# 80 connections each send half a request head. The monitor must hold at most 64 of them
# (closing the rest at once), close those after its 10 s request timeout, and answer again.
python3 - "$metrics_port" "$monitor" >"$work/slow.out" 2>&1 <<'PY'
import os, select, socket, sys, time
port, pid = int(sys.argv[1]), sys.argv[2]
def sockets_held():
    fds = f"/proc/{pid}/fd"
    return sum(os.readlink(f"{fds}/{fd}").startswith("socket:") for fd in os.listdir(fds))
before = sockets_held()
opened = {}  # a connection's life is timed from its own connect: a full backlog delays some
for _ in range(80):
    c = socket.create_connection(("127.0.0.1", port))
    c.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    opened[c] = time.monotonic()
time.sleep(1)
held = sockets_held() - before
lived, answered = [], 0
waiting = set(opened)
start = time.monotonic()
while waiting and time.monotonic() - start < 25:
    for c in select.select(list(waiting), [], [], 1)[0]:
        try:
            data = c.recv(1024)
        except OSError:
            data = b""
        answered += len(data)
        if not data:
            lived.append(time.monotonic() - opened[c])
            waiting.discard(c)
lived += [99] * len(waiting)
early = sum(t < 3 for t in lived)
print(held, early, round(max(lived), 1), answered)
PY
read -r held early last answered <"$work/slow.out" 2>/dev/null
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$metrics_port/metrics")
info "80 half-sent requests: $held held by the monitor, $early closed at once, the longest open ${last:-?} s; then /metrics answered $code"
if [ "${held:-999}" -le 64 ] && [ "${early:-0}" -ge 16 ] && [ "${answered:-1}" = 0 ] &&
    awk -v t="${last:-99}" 'BEGIN { exit !(t >= 8 && t < 16) }' && [ "$code" = 200 ]; then
    pass endpoint-slow-requests-bounded
else
    fail endpoint-slow-requests-bounded "$(head -c 600 "$work/slow.out")"
fi

# --- SIGTERM: monitoring stops, the file is released, exit 0 -----------------------------------
held=$(find "/proc/$monitor/fd" -mindepth 1 -maxdepth 1 -lname "$clip" 2>/dev/null | wc -l)
kill -TERM "$monitor"
rc=0
timeout 20 tail --pid="$monitor" -f /dev/null || rc=124
if [ "$rc" = 124 ]; then
    fail sigterm "still running 20 s after SIGTERM"
else
    wait "$monitor"; rc=$?
    last=$(tail -1 "$work/monitor.jsonl")
    info "held the clip open on $held descriptor(s) while running; exit $rc; last line $last"
    if [ "$rc" != 0 ]; then
        fail sigterm "exit status $rc: $(tail -3 "$work/monitor.log")"
    elif [ "$held" -lt 1 ]; then
        fail sigterm "the clip was not open while monitoring (nothing to release)"
    elif ! grep -q '"type":"service".*"state":"stopped".*"reason":"shutdown"' <<<"$last"; then
        fail sigterm "the last line is not the service's stop: $last"
    else
        pass sigterm
    fi
fi

# --- the JSON Lines stream's documented shape --------------------------------------------------
if python3 - "$work/monitor.jsonl" >"$work/shape.out" 2>&1 <<'PY'
import json, sys
from datetime import datetime
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no output"
objects = [json.loads(line) for line in lines]
def number(value): return isinstance(value, (int, float)) and not isinstance(value, bool)
def measured(value, key):
    return value is None or (set(value) == {key, "confidence"} and number(value[key]) and 0 <= value["confidence"] <= 1)
fields = {
    "service": {"started": {"source"}, "stopped": {"reason"}},
    "camera": {"opened": {"source"}, "lost": {"source", "error", "retryInSeconds"},
               "reopened": {"source", "attempts", "downtimeSeconds"}},
    "input": {"restarted": {"loops"}},
}
counts = {}
for line, o in zip(lines, objects):
    assert line.startswith('{"type":'), line
    kind = o["type"]
    counts[kind] = counts.get(kind, 0) + 1
    datetime.strptime(o["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    rest = set(o) - {"type", "time"}
    if kind in fields:
        assert rest == {"state"} | fields[kind][o["state"]], line
    elif kind == "estimate":
        assert rest == {"mediaTime", "pulse", "breathing", "hrvMs"}, line
        assert measured(o["pulse"], "bpm") and measured(o["breathing"], "perMinute"), line
        assert o["hrvMs"] is None or number(o["hrvMs"]), line
    elif kind == "validation":
        assert rest == {"code", "hint"}, line
    elif kind == "warning":
        assert rest == {"kind", "category", "severity", "message"}, line
    elif kind == "error":
        assert {"error", "message", "retryable"} <= rest <= {"error", "message", "retryable", "attempt", "retryInSeconds"}, line
    else:
        raise AssertionError("unknown type: " + line)
assert objects[0]["type"] == "service" and objects[0]["state"] == "started"
assert objects[1]["type"] == "camera" and objects[1]["state"] == "opened"
pulses = [o["pulse"]["bpm"] for o in objects if o["type"] == "estimate" and o["pulse"]]
assert pulses, "no pulse estimate"
assert all(abs(bpm - 68) <= 5 for bpm in pulses), f"pulse estimates {pulses} against a 68 bpm truth"
assert counts.get("input", 0) >= 1, "the clip never looped"
print(f"{len(lines)} lines: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
      + f"; pulse {min(pulses):.1f}-{max(pulses):.1f} bpm (truth 68)")
PY
then
    pass jsonl-shape
    info "$(cat "$work/shape.out")"
else
    fail jsonl-shape "$(tail -c 600 "$work/shape.out")"
fi

# --- opted-in vitals, and an address already taken ---------------------------------------------
vitals_port=$(free_port)
"$bin/circadify" monitor --input "$clip" --loop --metrics "127.0.0.1:$vitals_port" --export-vitals \
    >"$work/vitals.jsonl" 2>"$work/vitals.log" &
vitals_pid=$!
pids+=("$vitals_pid")
# A reading without a confident pulse removes the series, so wait for one that has it.
if wait_for 'curl -fsS "http://127.0.0.1:$vitals_port/metrics" >"$work/vitals.txt" &&
             grep -q "^circadify_pulse_bpm " "$work/vitals.txt"' 90; then
    bpm=$(sed -n 's/^circadify_pulse_bpm \(.*\)$/\1/p' "$work/vitals.txt")
    if [ -n "$bpm" ] && python3 -c "import sys; sys.exit(not abs(float('$bpm') - 68) <= 5)" &&
        promtool check metrics <"$work/vitals.txt" >/dev/null 2>&1; then
        pass export-vitals
        info "with --export-vitals: circadify_pulse_bpm $bpm (truth 68)"
    else
        fail export-vitals "circadify_pulse_bpm is '${bpm}', or promtool objects: $(promtool check metrics <"$work/vitals.txt" 2>&1 | head -3)"
    fi
else
    fail export-vitals "no circadify_pulse_bpm within 90 s: $(tail -3 "$work/vitals.log")"
fi
kill -TERM "$vitals_pid" 2>/dev/null; wait "$vitals_pid" 2>/dev/null

rc=0
timeout 30 "$bin/circadify" monitor --input "$clip" --metrics "127.0.0.1:$prom_port" >"$work/taken.jsonl" \
    2>"$work/taken.err" || rc=$?
# Refused before the camera opens: nothing on stdout (no "camera opened", no "stopped" line).
if [ "$rc" = 69 ] && grep -q "cannot listen on 127.0.0.1:$prom_port" "$work/taken.err" && [ ! -s "$work/taken.jsonl" ]; then
    pass metrics-address-in-use
else
    fail metrics-address-in-use "exit $rc (want 69), stdout $(head -c 300 "$work/taken.jsonl"): $(tail -2 "$work/taken.err")"
fi

# --- the systemd units ------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
    Tools/systemd/verify-units.sh "$bin/circadify" >"$work/verify.out" 2>&1 && pass systemd-units ||
        fail systemd-units "$(tail -c 600 "$work/verify.out")"
else
    info "systemd-analyze not installed: the units were not verified"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
