#!/usr/bin/env bash
# Release binaries for a board with no Swift toolchain: the Swift runtime and Foundation
# linked in (--static-swift-stdlib) and the C libraries the core uses (TurboJPEG, FFTW,
# libv4lconvert and the libjpeg it needs) taken from Debian's static archives, so the
# binary needs only the C library (glibc, libstdc++ for the Swift runtime) and, at run
# time, opencv-data's cascade for the face detector.
#
#   Tools/build-release.sh [PRODUCT ...]        (default: circadify)
#
# The binaries land in .build/release-static/ (stripped copies beside the unstripped
# ones). Then each is checked: ldd lists no Swift library and none of the C libraries
# above, `--help` runs, and `circadify` measures a generated 72 bpm clip within ±3 bpm.
# Prints the sizes and closes with `N passed, N failed` for Tools/run-tests.sh.
#
# How the archives are chosen without touching Package.swift (no unsafeFlags): the core
# asks for -lturbojpeg -lfftw3f -lv4lconvert -ljpeg; the linker takes, for each -l, the first
# directory on its search path holding libNAME.so or libNAME.a. A folder holding only the
# archives, put first with -L, so makes it pick them. libv4lconvert.a needs libjpeg and
# librt, which its shared object brings along by itself: those are added after it
# (libjpeg again: the core's own -ljpeg may come before libv4lconvert on the line).
set -uo pipefail
cd "$(dirname "$0")/.."

products=("$@")
[ ${#products[@]} -gt 0 ] || products=(circadify)

Tools/setup.sh || exit 1
out=.build/release-static
libs=$out/static-libs
mkdir -p "$libs"

passed=0 failed=0
ok() { echo "  ok: $1"; passed=$((passed + 1)); }
bad() { echo "  FAILED: $1"; failed=$((failed + 1)); }
finish() { echo "release: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

# The static archives, found where Debian installs them (multiarch directory).
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
for lib in turbojpeg fftw3f v4lconvert jpeg; do
    archive=/usr/lib/$multiarch/lib$lib.a
    [ -f "$archive" ] || { bad "no static archive $archive (install its -dev package)"; finish; }
    ln -sf "$archive" "$libs/lib$lib.a"
done

# Same flags for every product, so nothing is rebuilt between them.
build=(swift build -c release --static-swift-stdlib
    -Xlinker -L"$PWD/$libs" -Xlinker -ljpeg -Xlinker -lrt)
# The scan check needs a clip: the generator, built alongside (not shipped).
for product in "${products[@]}" circadify-groundtruth; do
    echo "release: building $product" >&2
    "${build[@]}" --product "$product" 2>&1 | grep -E "error|warning: " >&2
    [ "${PIPESTATUS[0]}" -eq 0 ] || { bad "swift build -c release --product $product"; finish; }
done
bin=$("${build[@]}" --show-bin-path)

for product in "${products[@]}"; do
    cp "$bin/$product" "$out/$product"
    strip -o "$out/$product-stripped" "$out/$product"
    deps=$(ldd "$out/$product")
    echo "ldd $out/$product:"
    sed 's/^/    /' <<<"$deps"
    swift_libs=$(grep -E 'libswift|libFoundation|lib_FoundationICU|libdispatch|libBlocksRuntime' <<<"$deps")
    if [ -z "$swift_libs" ]; then ok "$product: no Swift library in ldd"; else bad "$product links $swift_libs"; fi
    c_libs=$(grep -E 'libturbojpeg|libfftw3|libv4lconvert|libjpeg' <<<"$deps")
    if [ -z "$c_libs" ]; then ok "$product: TurboJPEG, FFTW, libv4lconvert and libjpeg linked statically"
    else bad "$product links shared: $c_libs"; fi
    if "$out/$product" --help >/dev/null 2>&1; then ok "$product --help runs"; else bad "$product --help failed"; fi
done

# A real measurement with the static binary: a generated face clip with a known pulse.
if [ -x "$out/circadify" ]; then
    clip=$out/face-72bpm.y4m
    [ -s "$clip" ] || "$bin/circadify-groundtruth" -o "$clip" --scenario still --seed 4 --duration 20 --hr 72 \
        --size 320x240 --quiet || bad "circadify-groundtruth could not render the clip"
    json=$("$out/circadify" scan --input "$clip" --duration 15 --json 2>/dev/null)
    hr=$(sed -nE 's/.*"heartRate":([0-9.]+).*/\1/p' <<<"$json")
    echo "circadify scan --input $clip --duration 15 --json: $json"
    if [ -n "$hr" ] && awk -v h="$hr" 'BEGIN { exit !(h >= 69 && h <= 75) }'; then
        ok "static circadify scan reads $hr bpm on the 72 bpm clip"
    else
        bad "static circadify scan: no heart rate within 72 ± 3 bpm"
    fi
fi

echo "sizes:"
for product in "${products[@]}"; do
    printf '    %-28s %6.1f MB   stripped %6.1f MB\n' "$product" \
        "$(stat -c %s "$out/$product" | awk '{ print $1 / 1048576 }')" \
        "$(stat -c %s "$out/$product-stripped" | awk '{ print $1 / 1048576 }')"
done
finish
