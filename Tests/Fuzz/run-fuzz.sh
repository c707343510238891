#!/usr/bin/env bash
# Fuzzes the Y4M / MJPEG readers and the per-frame path, then the cascade XML
# loader and face detector, with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer.
# Usage: Tests/Fuzz/run-fuzz.sh [SECONDS]   (default 120, per target)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-120}"
out=.build-fuzz
mkdir -p "$out/corpus"
Tools/setup.sh

# Seeds: small valid files of each kind, made by the project's clip tool.
swift build --product ccore-testclip 2>&1 | grep -E "error" >&2 || true
clip="$(swift build --show-bin-path)/ccore-testclip"
for f in y4m y4m422 y4m444 mjpeg; do
    "$clip" -o "$out/corpus/seed-$f" --format "$f" --size 32x24 --frames 2
done

clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -ICCore/include CCore/src/*.c Tests/Fuzz/fuzz_videofile.c -lturbojpeg -lfftw3f -lv4lconvert -lm -lpthread -o "$out/fuzz_videofile"
"$out/fuzz_videofile" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" "$out/corpus"

# Cascade XML: seeded with OpenCV's own LBP frontal-face file (opencv-data).
mkdir -p "$out/cascade-corpus"
cp /usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml "$out/cascade-corpus/seed-lbp.xml"
clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -ICCore/include CCore/src/*.c Tests/Fuzz/fuzz_cascade.c -lturbojpeg -lfftw3f -lv4lconvert -lm -lpthread -o "$out/fuzz_cascade"
"$out/fuzz_cascade" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/cascade-" "$out/cascade-corpus"
