#!/usr/bin/env bash
# The C core on arm64: cross-builds it and its C test runner (Tests/CTests) for aarch64
# with Debian's cross compiler and the arm64 multiarch -dev packages, and runs the tests
# under qemu-user; runs the same tests natively first. Checks that the ring's atomics
# compile to arm64's acquire/release instructions, and runs the C example (c-pulse) under
# qemu on a generated clip. Installs what it needs with apt-get (once).
#
#   Tools/arm64/run-arm64-tests.sh            CTEST_SCALE=10 for a ten times longer ring soak
#
# What qemu-user proves and what it cannot: the binaries are real aarch64 code (the
# compiler's arm64 code generation, Debian's arm64 FFTW, TurboJPEG and libv4lconvert, the
# kernel ABI), but qemu translates them onto this x86 host, whose stronger memory order the
# translated code inherits: the ring stress cannot meet arm64's weaker reorderings here.
# That is why the instructions are checked too; on a board the same `ctest` binary runs
# the stress on real hardware. Closes with `arm: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

passed=0 failed=0
ok() { echo "  ok: $1"; passed=$((passed + 1)); }
bad() { echo "  FAILED: $1"; failed=$((failed + 1)); }
finish() { echo "arm: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }
seconds() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(seconds)" 'BEGIN { printf "%.1f", b - a }'; }

# --- packages: the arm64 architecture, the cross compiler, qemu, the core's libraries for arm64
install() {
    local sudo="" missing=() p
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "arm64: need root (or sudo) to install packages" >&2; return 1; }
        sudo=sudo
    fi
    Tools/setup.sh gcc make || return 1
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        echo "arm64: adding the arm64 architecture to dpkg" >&2
        $sudo dpkg --add-architecture arm64 || return 1
    fi
    for p in gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev:arm64 qemu-user \
        libfftw3-dev:arm64 libturbojpeg0-dev:arm64 libjpeg62-turbo-dev:arm64 libv4l-dev:arm64; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "arm64: installing ${missing[*]}" >&2
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq || return 1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
}
install || { bad "installing the cross toolchain, qemu-user and the arm64 -dev packages"; finish; }

# run_ctests LABEL COMMAND...: runs the test runner, adds its counts to ours.
run_ctests() {
    local label=$1 start text p f s
    shift
    start=$(seconds)
    text=$("$@" 2>&1)
    echo "$text" | sed 's/^/    /'
    read -r p f s < <(sed -nE 's/^ctests: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/p' <<<"$text")
    if [ -z "${p:-}" ]; then
        bad "$label: the test runner did not finish"
        return
    fi
    # These builds can run every test: a skip means a check was lost, and counts as a failure.
    passed=$((passed + p))
    failed=$((failed + f + s))
    echo "  $label: $p passed, $f failed, $s skipped in $(since "$start") s"
}

# --- native (x86_64)
out=$repo/.build/ctests
mkdir -p "$out"
echo "== native: cc $(cc -dumpmachine)"
start=$(seconds)
if make -s -C Tests/CTests BUILD="$out/native" >/dev/null 2>"$out.native.log" || { cat "$out.native.log"; false; }; then
    ok "native build ($(since "$start") s)"
    run_ctests "native" "$out/native/ctest"
else
    bad "native build of the C core and Tests/CTests"
fi

# --- aarch64: cross-built, run under qemu-user
cross=(CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar)
echo "== aarch64: $(aarch64-linux-gnu-gcc --version | head -1), $(qemu-aarch64 --version | head -1)"
start=$(seconds)
if make -s -C Tests/CTests BUILD="$out/aarch64" "${cross[@]}" >/dev/null 2>"$out.aarch64.log" ||
    { cat "$out.aarch64.log"; false; }; then
    machine=$(readelf -h "$out/aarch64/ctest" | sed -nE 's/^ *Machine: *//p')
    if [ "$machine" = AArch64 ]; then ok "cross build ($(since "$start") s): ctest is $machine ELF"
    else bad "cross-built ctest is '$machine', not AArch64"; fi
    run_ctests "aarch64 (qemu-user)" qemu-aarch64 "$out/aarch64/ctest"
else
    bad "cross build of the C core and Tests/CTests for aarch64"
fi

# The ring's ordering, in the instructions: push publishes head with a store-release
# (stlr) after reading tail with a load-acquire (ldar/ldapr); pop the other way round.
# Without them (relaxed atomics, or plain fields) arm64 may show the consumer a slot
# before its bytes, which an x86 host never does.
ring_object=$out/aarch64/obj/ring.o
for fn in ccore_ring_push ccore_ring_pop; do
    asm=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$ring_object" 2>/dev/null |
        awk -v f="<$fn>:" '$2 == f { on = 1; next } on && /^$/ { exit } on')
    if grep -qw stlr <<<"$asm" && grep -qwE 'ldar|ldapr' <<<"$asm"; then
        ok "$fn on aarch64: load-acquire ($(grep -owE 'ldar|ldapr' <<<"$asm" | head -1)) and store-release (stlr)"
    else
        bad "$fn on aarch64 lacks a load-acquire or a store-release"
    fi
done

# The C example under qemu: the whole C API on arm64 (file source, cascade, spectrum).
if make -s -C Tools/examples/c-pulse BUILD="$out/aarch64" "${cross[@]}" >/dev/null 2>>"$out.aarch64.log"; then
    clip=$repo/.build/c-pulse/clips/still-72.y4m
    if [ ! -s "$clip" ] && command -v swift >/dev/null; then
        read -r -a flags <<<"${CIRCADIFY_SWIFT_FLAGS:-}"
        swift build "${flags[@]}" --product circadify-groundtruth >/dev/null 2>&1 && mkdir -p "${clip%/*}" &&
            "$(swift build "${flags[@]}" --show-bin-path)/circadify-groundtruth" -o "$clip" --scenario still \
                --seed 4 --hr 72 --size 320x240 --duration 20 --quiet
    fi
    if [ -s "$clip" ]; then
        start=$(seconds)
        text=$(qemu-aarch64 "$out/aarch64/c-pulse" "$clip" 2>&1)
        echo "$text" | sed 's/^/    /'
        rate=$(sed -nE 's/^heart rate +([0-9.]+) bpm$/\1/p' <<<"$text")
        if [ -n "$rate" ] && awk -v r="$rate" 'BEGIN { exit !(r >= 69 && r <= 75) }'; then
            ok "c-pulse on aarch64 (qemu-user, $(since "$start") s): $rate bpm on the 72 bpm clip"
        else
            bad "c-pulse on aarch64: '${rate:-no rate}' on the 72 bpm clip"
        fi
    else
        bad "no clip for c-pulse (circadify-groundtruth could not render it)"
    fi
else
    bad "cross build of c-pulse"
fi
finish
