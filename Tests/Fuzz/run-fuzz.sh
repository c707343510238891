#!/usr/bin/env bash
# Fuzzes the C core with libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer:
#   fuzz_videofile  Y4M / MJPEG files through the readers and the per-frame path
#   fuzz_jpeg       the JPEG decoder: hostile bytes, and real JPEGs of every size and subsampling
#   fuzz_cascade    the cascade XML loader and, for files it accepts, the face detector
# Each target starts from the seed corpus committed in Tests/Fuzz/corpus/ (plus OpenCV's LBP
# cascade for fuzz_cascade) and keeps what it finds in .build-fuzz/, never in the repository.
#
# Usage: Tests/Fuzz/run-fuzz.sh [SECONDS]        each target for SECONDS (default 60)
#        FUZZ_RUNS=N Tests/Fuzz/run-fuzz.sh      each target for N executions (the long run)
#        Tests/Fuzz/run-fuzz.sh --seeds          regenerate the committed seed corpus
# A crash, leak, timeout (10 s) or sanitizer report is a finding: the input is saved as
# .build-fuzz/<target>-crash-*, and the script exits 1. It closes with `N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build-fuzz
mkdir -p "$out/obj"
command -v clang >/dev/null || { echo "run-fuzz.sh: clang not found (it ships with the Swift toolchain)" >&2; exit 1; }
if [ -z "${FUZZ_SKIP_SETUP:-}" ]; then Tools/setup.sh; fi

libs=(-lturbojpeg -ljpeg -lfftw3f -lm -lpthread)
if grep -q "libv4lconvert" CCore/src/*.c; then libs+=(-lv4lconvert); fi
cflags=(-std=c11 -D_GNU_SOURCE -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -g -O2 -ICCore/include
    -fno-sanitize-recover=undefined)

# The core once, instrumented for coverage; each target links it.
for src in CCore/src/*.c; do
    obj="$out/obj/$(basename "${src%.c}").o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find CCore/include CCore/src -name '*.h' -newer "$obj")" ]; then
        clang "${cflags[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "$src" -o "$obj"
    fi
done
build() { # target
    clang "${cflags[@]}" -fsanitize=fuzzer,address,undefined "Tests/Fuzz/$1.c" "$out"/obj/*.o "${libs[@]}" -o "$out/$1" \
        2> >(grep -v "Cannot export local symbol '__asan" >&2)
}

if [ "${1:-}" = "--seeds" ]; then
    rm -rf Tests/Fuzz/corpus/videofile Tests/Fuzz/corpus/jpeg
    mkdir -p Tests/Fuzz/corpus/videofile Tests/Fuzz/corpus/jpeg
    clang "${cflags[@]}" Tests/Fuzz/make-seeds.c CCore/src/jpeg_encoder.c CCore/src/image.c -lturbojpeg -o "$out/make-seeds"
    "$out/make-seeds" Tests/Fuzz/corpus
    du -sh Tests/Fuzz/corpus
    exit 0
fi

seconds="${1:-60}"
if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); else limit=(-max_total_time="$seconds"); fi
passed=0 failed=0
fuzz() { # target corpus-name max-len
    local target=$1 work="$out/corpus-$2"
    build "$target"
    mkdir -p "$work"
    if [ -d "Tests/Fuzz/corpus/$2" ]; then cp -n Tests/Fuzz/corpus/"$2"/* "$work"/; fi
    if [ "$2" = cascade ] && [ -f /usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml ]; then
        cp -n /usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml "$work/seed-lbp.xml"
    fi
    if [ -n "${FUZZ_RUNS:-}" ]; then echo "== $target ($FUZZ_RUNS runs)"; else echo "== $target ($seconds s)"; fi
    local log="$out/$target.log" rc=0
    "$out/$target" "${limit[@]}" -max_len="$3" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/$target-" "$work" >"$log" 2>&1 || rc=$?
    local runs
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
    if [ "$rc" -eq 0 ]; then
        echo "$target: ${runs:-?} runs, no finding"
        passed=$((passed + 1))
    else
        grep -E "ERROR|runtime error|SUMMARY|Test unit written|==[0-9]+==" "$log" | head -20 || tail -20 "$log"
        echo "$target: FINDING after ${runs:-?} runs (exit $rc; log $log)"
        failed=$((failed + 1))
    fi
}
fuzz fuzz_videofile videofile 65536
fuzz fuzz_jpeg jpeg 16384
fuzz fuzz_cascade cascade 65536
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
