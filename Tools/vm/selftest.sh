#!/bin/bash
# Checks the guest that run-in-guest.sh gives, from inside it:
#   Tools/vm/run-in-guest.sh -- Tools/vm/selftest.sh
# Expects the default vivid arguments (one capture node and one output node).
set -euo pipefail

passed=0
failed=0
check() { # name command...
    local name=$1
    shift
    if "$@"; then
        echo "PASS $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name"
        failed=$((failed + 1))
    fi
}

# vivid names its nodes vivid-NNN-vid-cap and vivid-NNN-vid-out.
node_named() { # suffix
    local n
    for n in /sys/class/video4linux/video*; do
        if [[ $(cat "$n/name") == *-"$1" ]]; then
            echo "/dev/$(basename "$n")"
            return 0
        fi
    done
    return 1
}
cap=$(node_named vid-cap) || cap=""
out=$(node_named vid-out) || out=""
echo "capture node: ${cap:-none}, output node: ${out:-none}"
check "vivid capture and output nodes exist" test -c "$cap" -a -c "$out"

swift_runs() {
    [[ -x /opt/swift/usr/bin/swift ]] || { echo "  (no /opt/swift on this host)"; return 0; }
    /opt/swift/usr/bin/swift --version 2>&1 | grep -q 'Swift version'
}
check "Swift toolchain runs in the guest" swift_runs

# No udev in the guest: device nodes are root-only (0600), so an unprivileged user is denied.
unprivileged_is_denied() {
    local as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    [[ $("${as_nobody[@]}" id -u) == 65534 ]] || return 1
    local msg
    if msg=$("${as_nobody[@]}" v4l2-ctl -d "$cap" -D 2>&1); then return 1; fi
    grep -q 'Permission denied' <<<"$msg"
}
check "setpriv to uid 65534 is denied the capture node" unprivileged_is_denied

# Output -> capture loopback (DESIGN.md §6): HDMI input 3 and HDMI output 1, the same DV
# timings and format, loop_video=1, and no on-screen text so frames arrive unchanged.
loopback() {
    local w=640 h=480 frame=$((640 * 480 * 2)) dir i
    v4l2-ctl -d "$cap" -i 3 >/dev/null
    v4l2-ctl -d "$out" -o 1 >/dev/null
    v4l2-ctl -d "$cap" --set-dv-bt-timings index=0 >/dev/null
    v4l2-ctl -d "$out" --set-dv-bt-timings index=0 >/dev/null
    v4l2-ctl -d "$cap" -c loop_video=1 -c osd_text_mode=2
    v4l2-ctl -d "$cap" --set-fmt-video=width=$w,height=$h,pixelformat=YUYV
    v4l2-ctl -d "$out" --set-fmt-video-out=width=$w,height=$h,pixelformat=YUYV
    dir=$(mktemp -d)
    for i in 1 2 3 4; do head -c $frame /dev/urandom >"$dir/in$i"; done
    cat "$dir"/in? >"$dir/in.yuv"
    sha256sum "$dir"/in? | cut -d' ' -f1 | sort >"$dir/in.sums"

    v4l2-ctl -d "$out" --stream-out-mmap --stream-from="$dir/in.yuv" --stream-loop \
        --stream-count=600 >/dev/null 2>&1 &
    local writer=$!
    sleep 1
    v4l2-ctl -d "$cap" --stream-mmap --stream-count=8 --stream-to="$dir/out.yuv" 2>/dev/null
    kill "$writer" 2>/dev/null || true
    wait "$writer" 2>/dev/null || true

    (cd "$dir" && split -b $frame -d out.yuv got)
    local got=0 matched=0 distinct
    for i in "$dir"/got*; do
        got=$((got + 1))
        grep -qx "$(sha256sum <"$i" | cut -d' ' -f1)" "$dir/in.sums" && matched=$((matched + 1))
    done
    distinct=$(sha256sum "$dir"/got* | cut -d' ' -f1 | sort -u | wc -l)
    echo "  loopback: captured $got frames, $matched identical to a written frame, $distinct distinct"
    rm -rf "$dir"
    [[ $got -eq 8 && $matched -eq 8 && $distinct -ge 2 ]]
}
check "output-to-capture loopback delivers the written frames" loopback

echo "selftest: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
