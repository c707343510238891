#!/bin/bash
# Guest side of the loopback scan: plays a clip into vivid's output->capture loopback with
# vivid-feeder, runs a command against the capture node while it plays, then stops the feed.
# Run it inside the QEMU guest (Tools/vm/run-in-guest.sh); run-scan-loopback.sh does.
#
#   scan-loopback.sh [--feeder BIN] [--settle S] [--feeder-arg ARG]... [--disconnects] CLIP.y4m -- CMD [ARGS...]
#
# `@CAPTURE@` in CMD's arguments becomes the capture node (also in $CAPTURE), e.g.
#   scan-loopback.sh clip.y4m -- circadify scan --device @CAPTURE@ --duration 20 --json
# CMD starts S seconds (default 3) after the feed is ready; its stdout is ours. The feeder's
# messages and summary, and `scan-loopback: the command took N s`, go to stderr. Exit status:
# CMD's; 3 if the feeder failed to start or died while CMD ran (unless --disconnects: CMD
# pulls vivid's `disconnect` itself, which takes the output node away too); 2 on bad arguments.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
feeder=$repo/.build/release/vivid-feeder
settle=3
feeder_args=()
disconnects=0

usage() {
    echo "usage: $0 [--feeder BIN] [--settle S] [--feeder-arg ARG]... [--disconnects] CLIP.y4m -- CMD [ARGS...]" >&2
    exit 2
}
say() { echo "scan-loopback: $*" >&2; }

clip=""
while [[ $# -gt 0 ]]; do
    case $1 in
    --feeder) [[ $# -ge 2 ]] || usage; feeder=$2; shift 2 ;;
    --settle) [[ $# -ge 2 && $2 =~ ^[0-9]+([.][0-9]+)?$ ]] || usage; settle=$2; shift 2 ;;
    --feeder-arg) [[ $# -ge 2 ]] || usage; feeder_args+=("$2"); shift 2 ;;
    --disconnects) disconnects=1; shift ;;
    --) shift; break ;;
    -*) usage ;;
    *) [[ -z $clip ]] || usage; clip=$1; shift ;;
    esac
done
[[ -n $clip && $# -ge 1 ]] || usage
[[ -x $feeder ]] || { say "no feeder at $feeder (swift build -c release --product vivid-feeder)"; exit 3; }
[[ -r $clip ]] || { say "cannot read the clip $clip"; exit 3; }

log=$(mktemp "${TMPDIR:-/tmp}/feeder.XXXXXX")
feeder_pid=""
# Stops the feeder (SIGTERM: it stops streaming and prints its summary) and shows its log.
stop_feeder() {
    if [[ -n $feeder_pid ]] && kill -0 "$feeder_pid" 2>/dev/null; then
        kill -TERM "$feeder_pid" 2>/dev/null || true
        wait "$feeder_pid" 2>/dev/null || true
    fi
    feeder_pid=""
    sed 's/^/  feeder: /' "$log" >&2
}
trap 'stop_feeder; rm -f "$log"' EXIT

"$feeder" "${feeder_args[@]}" "$clip" >"$log" 2>&1 &
feeder_pid=$!

# Wait for `ready NODE` (the output is streaming the clip's first frame), up to 60 s.
capture=""
for _ in $(seq 600); do
    capture=$(sed -n 's/^ready //p' "$log")
    [[ -n $capture ]] && break
    if ! kill -0 "$feeder_pid" 2>/dev/null; then
        wait "$feeder_pid" && rc=0 || rc=$?
        feeder_pid=""
        say "the feeder exited ($rc) before the loopback was ready"
        exit 3
    fi
    sleep 0.1
done
[[ -n $capture ]] || { say "the feeder was not ready after 60 s"; exit 3; }
say "loopback ready on $capture; settling ${settle}s"
sleep "$settle"

args=()
for a in "$@"; do args+=("${a//@CAPTURE@/$capture}"); done
export CAPTURE=$capture
say "running: ${args[*]}"
rc=0
started=$(date +%s.%N)
"${args[@]}" || rc=$?
say "the command took $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"

if ! kill -0 "$feeder_pid" 2>/dev/null; then
    wait "$feeder_pid" && frc=0 || frc=$?
    feeder_pid=""
    if [[ $disconnects == 1 ]]; then
        say "the feeder ended ($frc) with the disconnect the command pulled"
        exit "$rc"
    fi
    say "the feeder died ($frc) while the command ran; its frames cannot be trusted"
    exit 3
fi
exit "$rc"
