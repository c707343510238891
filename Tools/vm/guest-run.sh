#!/bin/bash
# Runs inside the guest, as root, chrooted into the host's root (see guest-init.sh).
# Usage: guest-run.sh SHARE   (SHARE = the writable run share, /run/vm)
#
# job.sh in the share (written by run-in-guest.sh) defines VM_CWD, VM_REPO, VM_KROOT,
# VM_VIVID_ARGS and the command as the array CMD. Loads vivid, runs CMD with its
# stdout/stderr in files of the share, and records CMD's exit code in the file rc,
# which the host reads after the guest has powered off.
set -uo pipefail   # no -e: every failure here must still end in an rc file

share=$1
# shellcheck source=/dev/null
source "$share/job.sh"

finish() { # code
    echo "$1" >"$share/rc.tmp" && mv "$share/rc.tmp" "$share/rc"
    sync
    exit 0
}

# The host has no /lib/modules for the guest's kernel, and the read-only root cannot get
# one, so modprobe and modinfo are wrapped to read the unpacked kernel's tree instead.
# The wrappers come first in CMD's PATH too, so `modprobe -r vivid; modprobe vivid ...`
# works in the guest as usual.
bindir=/run/vm-bin
mkdir -p "$bindir"
wrap() { # tool option-naming-the-module-root
    local real
    real=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$1") || return 0
    printf '#!/bin/sh\nexec %q %s %q "$@"\n' "$real" "$2" "$VM_KROOT" >"$bindir/$1"
    chmod 0755 "$bindir/$1"
}
wrap modprobe -d
wrap modinfo -b

# VM_VIVID_ARGS is split into words on purpose: it is a list of name=value options.
# shellcheck disable=SC2086
if ! "$bindir/modprobe" vivid $VM_VIVID_ARGS >>"$share/stderr" 2>&1; then
    echo "run-in-guest: modprobe vivid $VM_VIVID_ARGS failed (see above)" >>"$share/stderr"
    finish 125
fi

# VM_CWD is the host's cwd, or the repo's root if the guest cannot see that (the host
# decided); the fallback only guards against a folder that vanished meanwhile.
cd "$VM_CWD" 2>/dev/null || cd "$VM_REPO" || finish 125

# With VM_MERGE_OUTPUT=1 the host's stdout and stderr are one stream: keep their order.
if [[ $VM_MERGE_OUTPUT == 1 ]]; then
    exec 3>"$share/stdout" 4>&3
else
    exec 3>"$share/stdout" 4>>"$share/stderr"
fi
env -i \
    PATH="$bindir:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/swift/usr/bin" \
    HOME=/tmp TMPDIR=/tmp USER=root LOGNAME=root LANG=C.UTF-8 \
    VM_GUEST=1 VM_KROOT="$VM_KROOT" VM_REPO="$VM_REPO" \
    "${CMD[@]}" </dev/null >&3 2>&4 3>&- 4>&-
finish $?
