# Shared by the benchmark scripts (source it): progress lines and release builds
# into the benchmarks' own build folder, so they never disturb .build.

say() { printf '==> %s\n' "$*" >&2; }

# build_release SCRATCH SCRIPT_NAME PRODUCT...: builds each product in release mode under
# SCRATCH (its log shown only on failure) and prints the folder the binaries are in.
build_release() {
    local scratch=$1 script=$2 product
    shift 2
    say "swift build -c release ($*)"
    mkdir -p "$scratch"
    for product in "$@"; do
        if ! swift build -c release --scratch-path "$scratch" --product "$product" >"$scratch/build-$product.log" 2>&1; then
            cat "$scratch/build-$product.log" >&2
            echo "$script: build of $product failed" >&2
            exit 1
        fi
    done
    swift build -c release --scratch-path "$scratch" --show-bin-path
}
