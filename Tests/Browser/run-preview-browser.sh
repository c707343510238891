#!/usr/bin/env bash
# The web preview in a real browser: installs Debian's chromium and python3-websocket (once),
# renders a ground-truth face clip with a known pulse (72 bpm), serves it with
# `circadify preview --input`, and has preview_browser.py drive headless Chromium through
# the page (load, click Start, wait for the result, check the heart rate shown against the
# truth and the overlay in a screenshot's pixels). Then SIGTERM must stop the server cleanly.
#
# The screenshot goes to $PREVIEW_SCREENSHOT (default .build/browser/preview-screenshot.jpg);
# the README's is made with PREVIEW_SCREENSHOT=docs/preview-screenshot.jpg.
set -uo pipefail
cd "$(dirname "$0")/../.."

work=.build/browser
screenshot=${PREVIEW_SCREENSHOT:-$work/preview-screenshot.jpg}
passed=0 failed=0
check() { # ok? description
    if [ "$1" -eq 0 ]; then echo "ok    $2"; passed=$((passed + 1)); else echo "FAIL  $2"; failed=$((failed + 1)); fi
}
finish() {
    echo "browser: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
/usr/bin/python3 -c 'import websocket' >/dev/null 2>&1 || need+=(python3-websocket)
if [ ${#need[@]} -gt 0 ]; then
    echo "Installing ${need[*]} (apt-get)..."
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } >/dev/null; then
        check 1 "apt-get install ${need[*]}"
        finish
    fi
fi

# shellcheck disable=SC2206 # the flags are words
flags=(${CIRCADIFY_SWIFT_FLAGS:-})
for product in circadify circadify-groundtruth; do
    if ! swift build --product "$product" "${flags[@]}" 2>&1 | grep -E "error:" ; then :; fi
done
bin="$(swift build --show-bin-path "${flags[@]}")"
if [ ! -x "$bin/circadify" ] || [ ! -x "$bin/circadify-groundtruth" ]; then
    check 1 "build circadify and circadify-groundtruth"
    finish
fi

mkdir -p "$work"
clip=$work/face-72bpm.y4m
if [ ! -s "$clip" ] || [ ! -s "${clip%.y4m}.json" ]; then
    "$bin/circadify-groundtruth" -o "$clip" --scenario still --seed 4 --duration 45 --hr 72 --rr 15 --quiet ||
        { check 1 "render the ground-truth clip"; finish; }
fi

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
"$bin/circadify" preview --input "$clip" --port 0 --duration 15 >"$log/out" 2>"$log/err" &
server=$!
url=
for _ in $(seq 1 150); do
    url=$(grep -o 'http://[^ ]*' "$log/out" 2>/dev/null)
    [ -n "$url" ] || ! kill -0 "$server" 2>/dev/null && break
    sleep 0.2
done
check "$([ -n "$url" ] && echo 0 || echo 1)" "circadify preview --input serves the page (${url:-no address printed: $(cat "$log/err")})"
if [ -n "$url" ]; then
    /usr/bin/python3 Tests/Browser/preview_browser.py "$url" "$clip" "$screenshot" | tee "$log/browser"
    read -r p f < <(sed -nE 's/^browser: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$log/browser")
    passed=$((passed + ${p:-0})) failed=$((failed + ${f:-1}))
fi

kill -TERM "$server" 2>/dev/null
status=124
for _ in $(seq 1 100); do
    if ! kill -0 "$server" 2>/dev/null; then wait "$server"; status=$?; break; fi
    sleep 0.1
done
[ "$status" -eq 124 ] && kill -KILL "$server" 2>/dev/null
check "$([ "$status" -eq 0 ] && grep -q "stopped, camera released" "$log/err" && echo 0 || echo 1)" \
    "SIGTERM stops the server cleanly within 10 s (exit status $status)"
finish
