#!/bin/bash
# Run a command inside a QEMU guest that boots Debian's kernel with the vivid V4L2 driver
# loaded, with the host's root as the guest's (read-only) root, as if on the host.
#
#   Tools/vm/run-in-guest.sh [--vivid-args "ARGS"] -- CMD [ARGS...]
#
# CMD's stdout and stderr come out on ours and its exit code is ours. See README.md.
#
# Environment:
#   VM_TIMEOUT   seconds before a guest is killed (default 600); the script then exits 124
#   VM_RW_DIRS   colon-separated host folders the guest may write to (same paths inside)
#   VM_MEM, VM_SMP  guest memory in MiB (2048) and CPU count (2)
#   VM_KEEP=1    keep the run's temporary folder (console log, QEMU log) for inspection
set -euo pipefail

readonly default_vivid_args="n_devs=1 node_types=0x101 input_types=0xe4"

usage() {
    echo "usage: $0 [--vivid-args \"ARGS\"] -- CMD [ARGS...]" >&2
    exit 2
}

die() {
    echo "run-in-guest: $*" >&2
    exit 125
}

vivid_args=$default_vivid_args
while [[ $# -gt 0 ]]; do
    case $1 in
    --vivid-args)
        [[ $# -ge 2 ]] || usage
        vivid_args=$2
        shift 2
        ;;
    --vivid-args=*)
        vivid_args=${1#--vivid-args=}
        shift
        ;;
    --)
        shift
        break
        ;;
    -h | --help) usage ;;
    *) usage ;;
    esac
done
[[ $# -ge 1 ]] || usage

timeout_s=${VM_TIMEOUT:-600}
[[ $timeout_s =~ ^[0-9]+$ && $timeout_s -gt 0 ]] || die "VM_TIMEOUT must be a positive number of seconds"

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
repo=$(cd "$here/../.." && pwd -P)
cache=$repo/.build-vm

as_root() {
    if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# --- host packages ------------------------------------------------------------------

# Runs apt-get as root, quietly: its output is shown only if it fails. Waits for a dpkg
# lock held by someone else instead of failing at once.
apt_get() {
    local log=$cache/apt.log
    if as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 "$@" \
        </dev/null >"$log" 2>&1; then
        return 0
    fi
    cat "$log" >&2
    return 1
}

ensure_packages() {
    local pkgs=(qemu-system-x86 busybox-static cpio v4l-utils kmod util-linux gzip xz-utils)
    local missing=() p
    for p in "${pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    echo "run-in-guest: installing ${missing[*]}" >&2
    # Install straight away if the package lists allow it; refresh them otherwise.
    if ! apt_get install -y --no-install-recommends "${missing[@]}" 2>/dev/null; then
        apt_get update || die "apt-get update failed"
        apt_get install -y --no-install-recommends "${missing[@]}" || die "cannot install ${missing[*]}"
    fi
}

# --- kernel ---------------------------------------------------------------------------

# Unpacks Debian's current amd64 kernel into $cache/kernel (never installed on the host)
# and builds its modules.dep there. Kept until $cache is removed.
fetch_kernel() {
    [[ -f $cache/kernel/.complete ]] && return 0
    local pkg work
    # The versioned image package that the meta package depends on, or nothing.
    pkg_of_meta() {
        apt-cache depends linux-image-amd64 2>/dev/null |
            awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9].*-amd64$/ && !p { print $2; p = 1 }'
    }
    rm -rf "$cache"/kernel.tmp.* "$cache"/initramfs.tmp.*   # left by an interrupted run
    # apt-get download writes into the current folder. As root it warns that the _apt
    # user cannot write there; that warning is harmless, hence the quiet apt_get.
    work=$(mktemp -d "$cache/kernel.tmp.XXXXXX")
    pkg=$(pkg_of_meta) || pkg=""
    if [[ -z $pkg ]] || ! (cd "$work" && apt_get download "$pkg" 2>/dev/null); then
        # No package lists yet, or they name a version the archive no longer has.
        apt_get update || die "apt-get update failed"
        pkg=$(pkg_of_meta) || pkg=""
        [[ -n $pkg ]] || die "cannot find the kernel package that linux-image-amd64 depends on"
        (cd "$work" && apt_get download "$pkg") || die "apt-get download $pkg failed"
    fi
    echo "run-in-guest: unpacking $pkg into $cache/kernel (once)" >&2
    dpkg-deb -x "$work"/*.deb "$work/root"
    rm -f "$work"/*.deb
    local kver
    kver=$(ls "$work/root/lib/modules")
    [[ -n $kver && -f $work/root/boot/vmlinuz-$kver ]] || die "unexpected layout in $pkg"
    # The package ships no modules.dep (its postinst makes one); make it here.
    depmod -b "$work/root" "$kver"
    prune_modules "$work/root/lib/modules/$kver"
    depmod -b "$work/root" "$kver"
    touch "$work/root/.complete"
    rm -rf "$cache/kernel" "$cache"/vmlinux-*
    mv "$work/root" "$cache/kernel"
    rmdir "$work"
}

# QEMU can boot the kernel's uncompressed ELF image directly (PVH entry point), which
# skips the real-mode setup and the XZ decompression that take ~5 s under TCG. Extracts
# it once from the bzImage into $cache/vmlinux-VER; boot_image falls back to the
# bzImage if that is not possible.
extract_vmlinux() { # kernel-version
    local k=$1 bz=$cache/kernel/boot/vmlinuz-$1 out=$cache/vmlinux-$1 off
    [[ -f $out ]] && return 0
    grep -q '^CONFIG_PVH=y' "$cache/kernel/boot/config-$k" 2>/dev/null || return 0
    grep -q '^CONFIG_KERNEL_XZ=y' "$cache/kernel/boot/config-$k" 2>/dev/null || return 0
    # Offset of the XZ stream's magic inside the bzImage.
    off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | awk -F: 'NR == 1 { print $1 }') || return 0
    [[ -n $off ]] || return 0
    # xz stops reading at the end of its stream, so tail may die of SIGPIPE: that is fine.
    if { tail -c +$((off + 1)) "$bz" || true; } | xz -dc --single-stream >"$out.tmp" 2>/dev/null &&
        [[ $(head -c 4 "$out.tmp" | od -An -c | tr -d ' ') == '177ELF' ]]; then
        mv "$out.tmp" "$out"
    else
        rm -f "$out.tmp"
    fi
}

boot_image() { # kernel-version
    if [[ -f $cache/vmlinux-$1 ]]; then
        echo "$cache/vmlinux-$1"
    else
        echo "$cache/kernel/boot/vmlinuz-$1"
    fi
}

# Keeps only the media drivers (vivid and the other test drivers), what the initramfs
# needs for 9p over virtio, and their dependencies: ~40 MB instead of ~400 MB.
prune_modules() { # modules-dir
    local dir=$1
    # modules.dep lines are "module: dependencies...", dependencies already transitive.
    awk -F: '$1 ~ /^kernel\/(drivers\/media|drivers\/virtio|net\/9p|fs\/9p|fs\/netfs|fs\/fscache)\// {
            keep[$1] = 1; n = split($2, d, " "); for (i = 1; i <= n; i++) keep[d[i]] = 1
        }
        END { for (m in keep) print m }' "$dir/modules.dep" | sort >"$dir/.keep"
    (cd "$dir" && find kernel -name '*.ko*' | sort | comm -23 - .keep | xargs -r rm -f &&
        find kernel -type d -empty -delete && rm -f .keep)
}

# --- initramfs ------------------------------------------------------------------------

kver() { ls "$cache/kernel/lib/modules"; }

# Paths of the modules (relative to the kernel tree) that the initramfs must insmod to
# mount 9p over virtio-pci, dependencies first, each once.
initramfs_modules() {
    local k=$1 m
    for m in virtio_pci 9pnet_virtio 9p; do
        modprobe -d "$cache/kernel" -S "$k" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++' | sed "s|^$cache/kernel/||"
}

# Builds $cache/initramfs.cpio.gz unless its stamp (a hash of everything that goes into
# it: init script, busybox, kernel version, module list, this script) is unchanged.
build_initramfs() {
    local k mods stamp
    k=$(kver)
    mods=$(initramfs_modules "$k")
    [[ -n $mods ]] || die "cannot resolve the 9p/virtio modules of kernel $k"
    stamp=$({
        cat "$here/guest-init.sh" "$here/run-in-guest.sh" /bin/busybox
        echo "$k"
        echo "$mods"
    } | sha256sum | cut -d' ' -f1)
    if [[ -f $cache/initramfs.cpio.gz && $(cat "$cache/initramfs.stamp" 2>/dev/null) == "$stamp" ]]; then
        return 0
    fi

    local stage m i=0
    stage=$(mktemp -d "$cache/initramfs.tmp.XXXXXX")
    mkdir -p "$stage/bin" "$stage/modules" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/newroot"
    cp /bin/busybox "$stage/bin/busybox"
    cp "$here/guest-init.sh" "$stage/init"
    chmod 0755 "$stage/init"
    while read -r m; do
        # Numbered names keep the order explicit and avoid clashes between basenames.
        local name
        name=$(printf '%02d-%s' "$i" "$(basename "$m")")
        cp "$cache/kernel/$m" "$stage/modules/$name"
        echo "$name" >>"$stage/modules/order"
        i=$((i + 1))
    done <<<"$mods"
    (cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
        cpio --null -o -H newc --owner=0:0 --quiet | gzip -1) >"$cache/initramfs.cpio.gz.tmp"
    mv "$cache/initramfs.cpio.gz.tmp" "$cache/initramfs.cpio.gz"
    echo "$stamp" >"$cache/initramfs.stamp"
    rm -rf "$stage"
}

prepare() {
    mkdir -p "$cache"
    # Several runs may start at once; one of them installs and prepares, the others wait.
    exec 9>"$cache/.lock"
    flock 9
    ensure_packages
    fetch_kernel
    extract_vmlinux "$(kver)"
    build_initramfs
    flock -u 9
    exec 9>&-
}

# --- run --------------------------------------------------------------------------------

# Quotes a value for a POSIX shell (job.env is read by busybox ash, not bash).
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

run_dir=""
qemu_pid=""
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
    if [[ -n $qemu_pid ]] && kill -0 "$qemu_pid" 2>/dev/null; then
        kill "$qemu_pid" 2>/dev/null || true
    fi
    if [[ -n $run_dir ]]; then
        if [[ ${VM_KEEP:-0} == 1 ]]; then
            echo "run-in-guest: kept $run_dir" >&2
        else
            rm -rf "$run_dir"
        fi
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Copies the bytes of file $1 past offset ${!2} to fd $3 and advances the offset, so that
# the guest's output is passed on while it runs, and exactly once.
pump() { # file offset-variable fd
    local size off=${!2}
    size=$(stat -c %s "$1" 2>/dev/null) || return 0
    if ((size > off)); then
        dd if="$1" iflag=skip_bytes,count_bytes skip="$off" count=$((size - off)) bs=64K status=none >&"$3"
        printf -v "$2" '%s' "$size"
    fi
}

# True when our stdout and stderr are the same file, pipe or terminal (as with 2>&1):
# the guest then writes both into one file, so their relative order is kept.
same_stdout_stderr() {
    local o e
    o=$(stat -L -c %d:%i "/proc/$$/fd/1" 2>/dev/null) || return 1
    e=$(stat -L -c %d:%i "/proc/$$/fd/2" 2>/dev/null) || return 1
    [[ $o == "$e" ]]
}

# True if the guest has its own fresh filesystem at path $1 (see guest-init.sh).
hidden_in_guest() {
    case $1 in
    /tmp | /tmp/* | /var/tmp | /var/tmp/* | /run | /run/* | /dev | /dev/* | /proc | /proc/* | /sys | /sys/*)
        return 0 ;;
    esac
    return 1
}

# True if path $1 is inside one of the shares "PATH MODE" given after it.
under_share() {
    local p=$1 s
    shift
    for s in "$@"; do
        s=${s% *}
        [[ $p == "$s" || $p == "$s"/* ]] && return 0
    done
    return 1
}

main() {
    local merge=0
    if same_stdout_stderr; then merge=1; fi
    prepare

    local k
    k=$(kver)
    run_dir=$(mktemp -d "${TMPDIR:-/tmp}/run-in-guest.XXXXXX")
    local share=$run_dir/share
    mkdir -p "$share"
    chmod 0777 "$share"   # so CMD may write there after dropping root, too
    : >"$share/stdout"
    : >"$share/stderr"

    # Extra 9p shares, each mounted over the same path in the guest: the folders of
    # VM_RW_DIRS (writable), and the repo itself (read-only) if it lies where the guest
    # has a fresh tmpfs (a checkout under /tmp, say), unless a writable share covers it.
    local shares=() d
    if [[ -n ${VM_RW_DIRS:-} ]]; then
        local dirs
        IFS=: read -r -a dirs <<<"$VM_RW_DIRS"
        for d in "${dirs[@]}"; do
            [[ -n $d ]] || continue
            [[ -d $d ]] || die "VM_RW_DIRS: $d is not a folder"
            shares+=("$(cd "$d" && pwd -P) rw")
        done
    fi
    if hidden_in_guest "$repo" && ! under_share "$repo" "${shares[@]}"; then
        shares+=("$repo ro")
    fi
    # Sorted, a folder comes before anything inside it, so guest-init.sh mounts parents
    # first. Paths never contain a newline here (mktemp and checkouts do not make them).
    local sorted=() line i=0 path mode share_args=() share_env=""
    if [[ ${#shares[@]} -gt 0 ]]; then
        mapfile -t sorted < <(printf '%s\n' "${shares[@]}" | LC_ALL=C sort -u)
    fi
    for line in "${sorted[@]}"; do
        path=${line% *}
        mode=${line##* }
        local fs_ro="" mount_ro=""
        [[ $mode == rw ]] || { fs_ro=,readonly=on; mount_ro=,ro,cache=loose; }
        share_args+=(-fsdev "local,id=share$i,path=$path,security_model=none$fs_ro"
            -device "virtio-9p-pci,fsdev=share$i,mount_tag=share$i")
        share_env+="VM_SHARE_PATH_$i=$(shq "$path")"$'\n'
        share_env+="VM_SHARE_OPTS_$i=$mount_ro"$'\n'
        i=$((i + 1))
    done

    # CMD starts in our cwd, unless the guest cannot see it (under its fresh /tmp, say):
    # then in the repo's root.
    local cwd
    cwd=$(pwd -P)
    if hidden_in_guest "$cwd" && ! under_share "$cwd" "${sorted[@]}"; then
        cwd=$repo
    fi

    # Read by guest-init.sh (busybox ash) and guest-run.sh (bash) respectively.
    {
        echo "VM_GUEST_RUN=$(shq "$here/guest-run.sh")"
        echo "VM_SHARE_COUNT=$i"
        printf '%s' "$share_env"
    } >"$share/job.env"
    {
        printf 'VM_VIVID_ARGS=%q\nVM_CWD=%q\nVM_REPO=%q\nVM_KROOT=%q\nVM_MERGE_OUTPUT=%s\n' \
            "$vivid_args" "$cwd" "$repo" "$cache/kernel" "$merge"
        local CMD=("$@")
        declare -p CMD
    } >"$share/job.sh"

    local append="console=ttyS0 quiet loglevel=1 panic=-1 rdinit=/init"
    local qemu=(qemu-system-x86_64
        -accel tcg -cpu max -m "${VM_MEM:-2048}" -smp "${VM_SMP:-2}"
        -nodefaults -no-user-config -display none -no-reboot
        -kernel "$(boot_image "$k")" -initrd "$cache/initramfs.cpio.gz"
        -append "$append"
        -serial "file:$run_dir/console.log"
        # multidevs=remap: the host root spans several filesystems; keeps inodes unique.
        -fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap"
        -device "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot"
        -fsdev "local,id=vmrun,path=$share,security_model=none"
        -device "virtio-9p-pci,fsdev=vmrun,mount_tag=vmrun"
        "${share_args[@]}")

    # timeout(1) ends a hung guest (TERM, then KILL 10 s later); if we are interrupted,
    # the EXIT trap signals timeout(1), which passes the signal on to QEMU.
    timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null >"$run_dir/qemu.log" 2>&1 &
    qemu_pid=$!

    # shellcheck disable=SC2034  # read and set by pump through their names
    local out_off=0 err_off=0
    while kill -0 "$qemu_pid" 2>/dev/null; do
        pump "$share/stdout" out_off 1
        pump "$share/stderr" err_off 2
        sleep 0.3
    done
    local qrc=0
    wait "$qemu_pid" || qrc=$?
    qemu_pid=""
    pump "$share/stdout" out_off 1
    pump "$share/stderr" err_off 2

    if [[ $qrc -eq 124 || $qrc -eq 137 ]]; then
        echo "run-in-guest: guest timed out after ${timeout_s}s (VM_TIMEOUT) and was killed" >&2
        show_logs
        exit 124
    fi
    if [[ ! -f $share/rc ]]; then
        echo "run-in-guest: the guest ended without reporting an exit code (QEMU exit $qrc)" >&2
        show_logs
        exit 125
    fi
    local rc
    rc=$(cat "$share/rc")
    [[ $rc =~ ^[0-9]+$ ]] || die "bad exit code from the guest: $rc"
    exit "$rc"
}

show_logs() {
    echo "--- QEMU output ---" >&2
    tail -n 20 "$run_dir/qemu.log" >&2 || true
    echo "--- guest console (last 40 lines) ---" >&2
    tail -n 40 "$run_dir/console.log" >&2 || true
}

main "$@"
