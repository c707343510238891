#!/bin/bash
# The C core's symbol hygiene: libCCore.a (the archive C integrators link statically)
# may define only `ccore_`-prefixed global symbols. Any other name (an internal helper
# that is neither `static` nor renamed) would collide with the integrator's own or
# another library's symbols in a static link; hidden visibility does not prevent that,
# since it only takes effect when a shared object is linked.
#
#   Tools/check-symbols.sh [--scratch-path DIR]
#
# Builds the CCore product, lists the archive's defined global symbols with `nm` and
# fails on any without the prefix. Closes with `N passed, N failed` like the suites.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo"
build=(swift build --product CCore "$@")
"${build[@]}" >&2
archive=$("${build[@]}" --show-bin-path)/libCCore.a
[[ -f $archive ]] || { echo "check-symbols: $archive was not built" >&2; echo "0 passed, 1 failed"; exit 1; }

# `nm -g --defined-only`: external symbols defined in the archive's objects
# (text, data, bss, read-only, common, weak); undefined references are left out.
symbols=$(nm -g --defined-only "$archive" | awk 'NF == 3 { print $3 }' | sort -u)
total=$(grep -c . <<<"$symbols" || true)
offenders=$(grep -v '^ccore_' <<<"$symbols" || true)
if [[ $total -eq 0 ]]; then
    echo "FAIL symbols: nm found no defined global symbol in $archive"
    echo "0 passed, 1 failed"
    exit 1
fi
if [[ -n $offenders ]]; then
    echo "FAIL symbols: libCCore.a defines global symbols without the ccore_ prefix:"
    sed 's/^/    /' <<<"$offenders"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "PASS symbols: all $total global symbols of libCCore.a start with ccore_"
echo "1 passed, 0 failed"
