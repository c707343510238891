#!/bin/bash
# Kernel-driver integration suite: builds ccore-vivid-suite and runs it as root inside a
# QEMU guest that boots Debian's kernel with the vivid V4L2 driver loaded
# (Tools/vm/run-in-guest.sh; it installs what it needs on first use).
#
#   Tests/Integration/run-vivid-suite.sh [TEST ...]     all tests, or only the named ones
#
# The suite prints `PASS name` / `FAIL name: reason` per test and closes with
# `N passed, N failed`; this script's exit code is the suite's (or the harness's:
# 124 guest timeout, 125 guest set-up failure).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$repo"

# Release: the per-frame kernels run under QEMU's TCG, where -O0 code is slow enough to
# make vivid drop frames on its own. VIVID_SCRATCH_PATH builds elsewhere than .build.
build=(swift build -c release --product ccore-vivid-suite)
[[ -n ${VIVID_SCRATCH_PATH:-} ]] && build+=(--scratch-path "$VIVID_SCRATCH_PATH")
"${build[@]}" >&2
bin=$("${build[@]}" --show-bin-path)/ccore-vivid-suite
[[ -x $bin ]] || { echo "run-vivid-suite: $bin was not built" >&2; exit 1; }

exec "$repo/Tools/vm/run-in-guest.sh" -- "$bin" "$@"
