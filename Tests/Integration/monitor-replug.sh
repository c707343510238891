#!/bin/bash
# Guest side of the monitor's unplug/replug check: `circadify monitor --device` on vivid's
# capture node (its own test pattern), then vivid's `disconnect` while it streams. Run it
# inside the QEMU guest (Tools/vm/run-in-guest.sh); run-monitor-replug.sh does.
#
#   monitor-replug.sh CIRCADIFY
#
# vivid brings its nodes back only once every descriptor on them is closed, so a second
# descriptor held across the disconnect keeps the camera away for a while, then lets it
# come back. Checks, in order:
#   stop       a first monitor, SIGTERM once it locked the controls: exit 0, the stop line
#              last, the controls restored, the node free at once
#   opened     a second monitor opens the node and analyses frames (a validation line)
#   lost       the disconnect gives {"type":"camera","state":"lost"} with captureFailed within 5 s
#   backoff    while the node is away: error lines, attempts 1, 2, ... , delays doubling
#   reopened   the node back: {"type":"camera","state":"reopened"}, frames analysed again
#   sigterm    SIGTERM after the replug: exit 0, the stop line last, the node free
# (A disconnected node cannot have its controls restored, and vivid, unlike a replugged USB
# camera, keeps them across its reconnect: the second monitor finds them locked already, so
# restoring is checked on the first.)
# Prints `PASS name` or `FAIL name: reason` per check and closes with `N passed, N failed`.
set -uo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 CIRCADIFY" >&2; exit 2; }
circadify=$1
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
info() { echo "    $*"; }
finish() { echo "$passed passed, $failed failed"; [[ $failed == 0 ]]; exit; }

work=$(mktemp -d)
monitor=""
trap '[[ -n $monitor ]] && kill -KILL "$monitor" 2>/dev/null; rm -rf "$work"' EXIT

node_named() {
    local n
    for n in /sys/class/video4linux/video*; do
        [[ $(cat "$n/name" 2>/dev/null) == *-"$1" ]] && { echo "/dev/$(basename "$n")"; return 0; }
    done
    return 1
}
capture=$(node_named vid-cap) || { fail setup "no vivid capture node"; finish; }
gain_auto() { v4l2-ctl -d "$capture" -C gain_automatic 2>/dev/null | sed -n 's/^gain_automatic: //p'; }
out=$work/monitor.jsonl
# Waits up to $2 s for a line of the output matching the extended regex $1 (after line $3).
wait_line() { # regex seconds [after-line]
    local deadline=$(($(date +%s) + $2))
    while [[ $(date +%s) -lt $deadline ]]; do
        tail -n +"$((${3:-0} + 1))" "$out" | grep -qE "$1" && return 0
        sleep 0.2
    done
    return 1
}
line_of() { grep -nE "$1" "$out" | head -1 | cut -d: -f1; }

# Waits for SIGTERM to end the monitor; sets rc (124: still running after 20 s).
stop_monitor() {
    kill -TERM "$monitor"
    rc=0
    timeout 20 tail --pid="$monitor" -f /dev/null || rc=124
    [[ $rc == 124 ]] && return
    wait "$monitor"; rc=$?
    monitor=""
}
node_streams() { timeout 20 v4l2-ctl -d "$capture" --stream-mmap --stream-count=5 >"$work/again.out" 2>&1; }

before=$(gain_auto)
"$circadify" monitor --device "$capture" >"$out" 2>"$work/monitor.log" &
monitor=$!
locked=0
for _ in $(seq 150); do
    [[ $(gain_auto) == 0 ]] && { locked=1; break; }
    kill -0 "$monitor" 2>/dev/null || break
    sleep 0.2
done
if [[ $locked == 0 ]]; then
    fail stop "the monitor never locked the controls (gain_automatic $(gain_auto)): $(tail -3 "$work/monitor.log")"
else
    stop_monitor
    after=$(gain_auto)
    last=$(tail -1 "$out")
    info "stop: exit $rc; gain_automatic $before before, 0 while monitoring, $after after; last line $last"
    if [[ $rc != 0 ]]; then
        fail stop "exit status $rc (124: still running 20 s after SIGTERM)"
    elif ! grep -q '"state":"stopped","reason":"shutdown"' <<<"$last"; then
        fail stop "the last line is not the stop: $last"
    elif [[ $after != "$before" ]]; then
        fail stop "gain_automatic is $after after, $before before: controls not restored"
    elif ! node_streams; then
        fail stop "the node could not stream right after: $(head -c 300 "$work/again.out")"
    else
        pass stop
    fi
fi
[[ -n $monitor ]] && { kill -KILL "$monitor" 2>/dev/null; wait "$monitor" 2>/dev/null; monitor=""; }

: >"$out"
"$circadify" monitor --device "$capture" --max-backoff 2 >"$out" 2>"$work/monitor.log" &
monitor=$!
if wait_line '"state":"opened"' 60 && wait_line '"type":"validation"' 60; then
    pass opened
    info "$(grep -m1 '"type":"validation"' "$out")"
else
    fail opened "no camera opened + validation lines: $(tail -c 400 "$out") $(tail -3 "$work/monitor.log")"
    finish
fi

exec 3<"$capture" # a second user: the node stays away until it closes
t0=$(date +%s.%N)
v4l2-ctl -d "$capture" --set-ctrl disconnect=1 >"$work/press.out" 2>&1 ||
    { fail lost "pressing vivid's disconnect failed: $(cat "$work/press.out")"; finish; }
if wait_line '"type":"camera".*"state":"lost"' 10; then
    took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    lost=$(grep -m1 '"state":"lost"' "$out")
    info "$lost"
    if ! grep -q '"error":{"error":"captureFailed"' <<<"$lost"; then
        fail lost "the lost line does not carry captureFailed"
    elif awk -v t="$took" 'BEGIN { exit !(t > 5) }'; then
        fail lost "reported $took s after the disconnect (allowed 5)"
    else
        pass lost
    fi
else
    fail lost "no lost line within 10 s of the disconnect: $(tail -c 400 "$out")"
fi

lost_at=$(line_of '"state":"lost"')
if wait_line '"type":"error".*"attempt":3' 20 "${lost_at:-0}"; then
    python3 - "$out" <<'PY' >"$work/backoff.out" 2>&1 && pass backoff || fail backoff "$(cat "$work/backoff.out")"
import json, sys
objects = [json.loads(line) for line in open(sys.argv[1])]
lost = next(i for i, o in enumerate(objects) if o.get("state") == "lost")
errors = [o for o in objects[lost + 1:] if o["type"] == "error"][:3]
attempts = [o["attempt"] for o in errors]
delays = [o["retryInSeconds"] for o in errors]
print(f"after the lost line (retry in {objects[lost]['retryInSeconds']} s): errors {[o['error'] for o in errors]}, "
      f"attempts {attempts}, delays {delays}")
assert attempts == [1, 2, 3], attempts
assert delays == [1, 2, 2], delays  # the lost line's 0.5 s doubling, capped by --max-backoff 2
assert all(o["error"] in ("cameraNotAvailable", "captureFailed") for o in errors)
PY
    info "$(cat "$work/backoff.out")"
else
    fail backoff "fewer than 3 failed attempts while the node was away: $(tail -c 600 "$out")"
fi

exec 3<&- # the last other user gone: vivid registers its nodes again
if wait_line '"state":"reopened"' 20 "${lost_at:-0}"; then
    reopened_at=$(line_of '"state":"reopened"')
    info "$(sed -n "${reopened_at}p" "$out")"
    if wait_line '"type":"validation"' 30 "$reopened_at"; then
        pass reopened
    else
        fail reopened "reopened, but no frame analysed after it: $(tail -c 400 "$out")"
    fi
else
    fail reopened "not reopened within 20 s of the node coming back: $(tail -c 600 "$out")"
fi

stop_monitor
if [[ $rc == 124 ]]; then
    fail sigterm "still running 20 s after SIGTERM"
else
    last=$(tail -1 "$out")
    info "exit $rc; last line $last"
    if [[ $rc != 0 ]]; then
        fail sigterm "exit status $rc: $(tail -3 "$work/monitor.log")"
    elif ! grep -q '"state":"stopped","reason":"shutdown"' <<<"$last"; then
        fail sigterm "the last line is not the stop: $last"
    elif ! node_streams; then
        fail sigterm "the node could not stream right after: $(head -c 300 "$work/again.out")"
    else
        pass sigterm
    fi
fi
info "lines by type: $(python3 -c '
import collections, json, sys
print(dict(collections.Counter(json.loads(l)["type"] for l in open(sys.argv[1]))))' "$out")"
finish
