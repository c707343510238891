#!/usr/bin/env bash
# Builds the Circadify module's DocC documentation (Sources/Circadify/Circadify.docc and
# the doc comments) with swift-docc-plugin; a warning (a broken symbol link, say) fails it.
# Extra arguments go to the plugin, e.g. --transform-for-static-hosting. Closes with
# `N passed, M failed` for Tools/run-tests.sh. The archive lands in
# .build-docs/plugins/Swift-DocC/outputs/Circadify.doccarchive. Preview in a browser with
#   swift package --scratch-path .build-docs --disable-sandbox preview-documentation --target Circadify
set -uo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

start=$SECONDS
# Its own build folder: extracting the symbol graph builds the module with other flags,
# which in .build would throw away the tests' build, and the tests' build this one.
swift package --scratch-path .build-docs generate-documentation --target Circadify --warnings-as-errors "$@" \
    >"$out" 2>&1
rc=$?
grep -vE "^\[[0-9]+/[0-9]+\]" "$out"
if [ "$rc" -eq 0 ] && ! grep -qE "warning:|error:" "$out"; then
    echo "docs: built with no warnings in $((SECONDS - start)) s"
    echo "1 passed, 0 failed"
else
    echo "docs: the documentation build failed or warned (exit $rc)"
    echo "0 passed, 1 failed"
    exit 1
fi
