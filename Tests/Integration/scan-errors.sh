#!/bin/bash
# Guest side of the camera error checks: runs the real `circadify scan --device ... --json`
# against vivid's capture node in the ways a camera fails, and checks each exit status and
# JSON error. Run it inside the QEMU guest (Tools/vm/run-in-guest.sh); run-scan-errors.sh does.
#
#   scan-errors.sh [--feeder BIN] CIRCADIFY CLIP.y4m
#
# Checks, in this order (the disconnect last: vivid's nodes come back only once every
# descriptor is closed):
#   missing-node   a node that does not exist            -> 10 cameraNotAvailable
#   permission     the node as uid 65534 (nodes are 0600) -> 11 cameraPermissionDenied, with the fix
#   in-use         the node streamed by v4l2-ctl          -> 12 cameraInUse
#   sigint         SIGINT while measuring a face          -> 130 cancelled; controls restored,
#                                                             the node streams again at once
#   sighup         SIGHUP (a closed terminal) likewise    -> the same as SIGINT
#   disconnect     vivid's `disconnect` while measuring   -> 30 captureFailed within 5 s
# CLIP (played with vivid-feeder) puts a face in front of the camera, so the last three
# interrupt a measurement, not the wait for a face.
#
# Prints `PASS name` or `FAIL name: reason` per check and closes with `N passed, N failed`.
# Exit 0 when all passed, 1 otherwise, 2 on bad arguments.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
feeder=$repo/.build/release/vivid-feeder
usage() { echo "usage: $0 [--feeder BIN] CIRCADIFY CLIP.y4m" >&2; exit 2; }
if [[ ${1:-} == --feeder ]]; then
    [[ $# -ge 2 ]] || usage
    feeder=$2
    shift 2
fi
[[ $# -eq 2 ]] || usage
circadify=$1 clip=$2

passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
info() { echo "    $*"; }

work=$(mktemp -d)
background=()
cleanup() {
    local pid
    for pid in "${background[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

node_named() { # suffix: vivid names its nodes vivid-NNN-vid-cap / -vid-out
    local n
    for n in /sys/class/video4linux/video*; do
        [[ $(cat "$n/name" 2>/dev/null) == *-"$1" ]] && { echo "/dev/$(basename "$n")"; return 0; }
    done
    return 1
}
capture=$(node_named vid-cap) || { echo "FAIL setup: no vivid capture node"; echo "0 passed, 1 failed"; exit 1; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# The scan's JSON on stdout: "error message" of an error object, "result" for a result.
json_outcome() { # file
    python3 - "$1" <<'PY'
import json, sys
try:
    value = json.loads(open(sys.argv[1]).read())
except ValueError:
    print("unparsable"); sys.exit()
if isinstance(value, dict) and "error" in value:
    print(value["error"], value.get("message", ""))
elif isinstance(value, dict) and "heartRate" in value:
    print("result")
else:
    print("unexpected")
PY
}

# Checks that scan NAME's output file and exit status are the expected error.
expect_error() { # name rc expected-rc expected-case [message-pattern]
    local name=$1 rc=$2 want_rc=$3 want_case=$4 pattern=${5:-} outcome
    outcome=$(json_outcome "$work/$name.out")
    info "$name: exit $rc, $(head -c 400 "$work/$name.out")"
    [[ -s $work/$name.err ]] && info "$name stderr: $(head -c 400 "$work/$name.err")"
    if [[ ${outcome%% *} != "$want_case" ]]; then
        fail "$name" "expected error $want_case, got: $outcome (exit $rc)"
    elif [[ $rc != "$want_rc" ]]; then
        fail "$name" "error $want_case but exit status $rc, not $want_rc"
    elif [[ -n $pattern ]] && ! grep -qE "$pattern" <<<"$outcome"; then
        fail "$name" "the message does not match /$pattern/: ${outcome#* }"
    else
        return 0
    fi
    return 1
}

# A scan that must end by itself; killed after 90 s so a hang fails instead of stalling.
scan() { # name node [prefix command words, e.g. setpriv ...]
    local name=$1 node=$2
    shift 2
    timeout -s KILL 90 "$@" "$circadify" scan --device "$node" --duration 20 --json \
        >"$work/$name.out" 2>"$work/$name.err"
}

gain_auto() { v4l2-ctl -d "$capture" -C gain_automatic 2>/dev/null | sed -n 's/^gain_automatic: //p'; }

# Waits until PID has locked the camera's controls (auto gain off: it is streaming, 2 s in).
wait_locked() { # pid timeout-s
    local deadline=$(($(date +%s) + $2))
    while [[ $(date +%s) -lt $deadline ]]; do
        kill -0 "$1" 2>/dev/null || return 1
        [[ $(gain_auto) == 0 ]] && return 0
        sleep 0.2
    done
    return 1
}

# Plays CLIP into the loopback; returns once the capture node shows it.
start_feed() {
    "$feeder" "$clip" >"$work/feeder.log" 2>&1 &
    feeder_pid=$!
    background+=("$feeder_pid")
    local i
    for i in $(seq 600); do
        grep -q '^ready ' "$work/feeder.log" && return 0
        kill -0 "$feeder_pid" 2>/dev/null || break
        sleep 0.1
    done
    info "feeder: $(tail -3 "$work/feeder.log")"
    return 1
}
stop_feed() { kill -TERM "$feeder_pid" 2>/dev/null; wait "$feeder_pid" 2>/dev/null; }

info "capture node $capture; $(v4l2-ctl -d "$capture" -C gain_automatic 2>&1)"

# --- missing-node ---------------------------------------------------------------------------
missing=/dev/video99
if [[ -e $missing ]]; then
    fail missing-node "$missing exists"
else
    rc=0; scan missing-node "$missing" || rc=$?
    expect_error missing-node "$rc" 10 cameraNotAvailable "$missing" && pass missing-node
fi

# --- permission -----------------------------------------------------------------------------
# The node is root:root 0600 (no udev in the guest): the fix is a udev rule for the 'video'
# group, never joining root's group.
rc=0; scan permission "$capture" setpriv --reuid=65534 --regid=65534 --clear-groups || rc=$?
if expect_error permission "$rc" 11 cameraPermissionDenied 'GROUP="video".*usermod -aG video'; then
    if grep -q -- '-aG root' "$work/permission.out"; then
        fail permission "the message tells the user to join the root group"
    else
        pass permission
    fi
fi

# --- in-use ---------------------------------------------------------------------------------
v4l2-ctl -d "$capture" --stream-mmap >"$work/holder.out" 2>&1 &
holder=$!
background+=("$holder")
for _ in $(seq 100); do [[ -s $work/holder.out ]] && break; sleep 0.1; done
if ! kill -0 "$holder" 2>/dev/null || [[ ! -s $work/holder.out ]]; then
    fail in-use "v4l2-ctl --stream-mmap did not start streaming: $(head -c 300 "$work/holder.out")"
else
    rc=0; scan in-use "$capture" || rc=$?
    expect_error in-use "$rc" 12 cameraInUse "$capture" && pass in-use
fi
kill -TERM "$holder" 2>/dev/null; wait "$holder" 2>/dev/null

# Starts the feed and `circadify scan --device` (output in $work/NAME.out/.err) and waits
# until it is measuring: controls locked, then 3 s for the face. Sets scan_pid; on failure
# records a FAIL for NAME (saying what the scan never did) and returns 1.
scan_until_measuring() { # name what-comes-next
    local name=$1 next=$2
    start_feed || { fail "$name" "the feeder did not start"; return 1; }
    "$circadify" scan --device "$capture" --duration 20 --json >"$work/$name.out" 2>"$work/$name.err" &
    scan_pid=$!
    background+=("$scan_pid")
    if ! wait_locked "$scan_pid" 60; then
        stop_feed
        fail "$name" "the scan never locked the controls (gain_automatic stayed $(gain_auto))"
        return 1
    fi
    sleep 3   # controls locked and a face in view: measuring by now
    kill -0 "$scan_pid" 2>/dev/null || { stop_feed; fail "$name" "the scan ended before $next"; return 1; }
}

# --- sigint, sighup -------------------------------------------------------------------------
# Ctrl-C, and SIGHUP (a closed terminal or ssh session), end a scan the same way: the camera
# released at once, its controls restored, `cancelled` (130).
stopped_by() { # name signal
    local name=$1 signal=$2 before rc after
    before=$(gain_auto)
    [[ -n $before ]] || { fail "$name" "vivid has no gain_automatic control to watch"; return; }
    scan_until_measuring "$name" "the signal" || return
    local pid=$scan_pid
    local t0; t0=$(now)
    kill "-$signal" "$pid"
    rc=0; timeout 30 tail --pid="$pid" -f /dev/null || rc=$?
    [[ $rc == 0 ]] || { stop_feed; fail "$name" "the scan was still running 30 s after SIG$signal"; return; }
    rc=0; wait "$pid" || rc=$?
    local took; took=$(elapsed "$t0" "$(now)")
    after=$(gain_auto)
    # The node must be free at once: stream a few buffers from it.
    local again=0
    timeout 20 v4l2-ctl -d "$capture" --stream-mmap --stream-count=5 >"$work/again.out" 2>&1 || again=$?
    stop_feed
    expect_error "$name" "$rc" 130 cancelled "SIG$signal" || return
    info "$name: ended $took s after the signal; gain_automatic $before before, $after after"
    if [[ $after != "$before" ]]; then
        fail "$name" "gain_automatic is $after after the scan, $before before: controls not restored"
    elif [[ $again != 0 ]]; then
        fail "$name" "the node could not stream right after (v4l2-ctl exit $again: $(head -c 300 "$work/again.out"))"
    else
        pass "$name"
    fi
}
stopped_by sigint INT
stopped_by sighup HUP

# --- disconnect -----------------------------------------------------------------------------
disconnect() {
    scan_until_measuring disconnect "the disconnect" || return
    local pid=$scan_pid
    local t0; t0=$(now)
    if ! v4l2-ctl -d "$capture" --set-ctrl disconnect=1 >"$work/press.out" 2>&1; then
        stop_feed
        fail disconnect "pressing vivid's disconnect failed: $(head -c 300 "$work/press.out")"
        return
    fi
    local rc=0
    timeout 30 tail --pid="$pid" -f /dev/null || rc=$?
    [[ $rc == 0 ]] || { stop_feed; fail disconnect "the scan was still running 30 s after the disconnect"; return; }
    rc=0; wait "$pid" || rc=$?
    local took; took=$(elapsed "$t0" "$(now)")
    stop_feed
    expect_error disconnect "$rc" 30 captureFailed || return
    info "disconnect: the scan ended $took s after the disconnect"
    if awk -v t="$took" 'BEGIN { exit !(t > 5) }'; then
        fail disconnect "the scan took $took s to end after the disconnect (allowed 5)"
    else
        pass disconnect
    fi
}
disconnect

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
