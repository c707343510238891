#!/bin/busybox sh
# PID 1 of the guest's initramfs, run by busybox-static's ash (not bash).
#
# It loads the virtio and 9p modules that were copied into the initramfs, mounts the
# host's root read-only (9p tag "hostroot") and the per-run writable share (tag "vmrun")
# at /run/vm inside it, adds the kernel filesystems a chroot needs, then runs
# Tools/vm/guest-run.sh chrooted into the host root and powers the machine off.
#
# Everything that varies from run to run comes through the share (job.env here,
# job.sh for guest-run.sh), so this file, and hence the cached initramfs, stays fixed.

/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin /proc /sys /dev /newroot
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t devtmpfs devtmpfs /dev
# The kernel may have found no /dev/console to give us; take it now that /dev exists.
exec </dev/null >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

# Any failure here ends the run; the host sees no exit code and prints this console's log.
die() {
    echo "vm-init: $*"
    sync
    poweroff -f
    sleep 5
    exit 1   # PID 1 exiting panics the kernel; panic=-1 plus -no-reboot ends QEMU.
}

# Modules in dependency order, computed on the host when the initramfs was built.
while read -r ko; do
    insmod "/modules/$ko" || die "insmod $ko failed"
done </modules/order

# 9p over virtio: msize raises the 8 KiB default so large reads take fewer round trips.
p9opts=trans=virtio,version=9p2000.L,msize=262144

# Device probing is synchronous on insmod, but allow a moment just in case.
mount_9p() { # tag dir extra-options
    n=0
    until mount -t 9p -o "$p9opts$3" "$1" "$2"; do
        n=$((n + 1))
        [ "$n" -lt 20 ] || return 1
        sleep 0.1
    done
}

# The guest only reads the host root and lives briefly, so it may cache it (cache=loose,
# far faster for big binaries); it then may miss host changes made during the run.
mount_9p hostroot /newroot ,ro,cache=loose || die "cannot mount the host root (9p tag hostroot)"
mount -t tmpfs -o mode=0755 tmpfs /newroot/run || die "cannot mount /run"
mkdir -p /newroot/run/vm
# The writable share must not be cached: the host reads what the guest writes there.
mount_9p vmrun /newroot/run/vm "" || die "cannot mount the run share (9p tag vmrun)"
[ -r /newroot/run/vm/job.env ] || die "no job.env in the run share"
# shellcheck source=/dev/null
. /newroot/run/vm/job.env

mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp || die "cannot mount /tmp"
[ -d /newroot/var/tmp ] && mount -t tmpfs -o mode=1777 tmpfs /newroot/var/tmp
mount -t proc proc /newroot/proc || die "cannot mount /proc"
mount -t sysfs sysfs /newroot/sys || die "cannot mount /sys"
mount -t devtmpfs devtmpfs /newroot/dev || die "cannot mount /dev"
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
ip link set lo up 2>/dev/null

# Extra shares (tags share0, share1, ...): VM_RW_DIRS folders and, when it lies under the
# host's /tmp or similar, the repo. Each is mounted over its own path, parents first;
# one under the guest's fresh /tmp is created there first.
i=0
while [ "$i" -lt "${VM_SHARE_COUNT:-0}" ]; do
    dir="" opts=""
    eval "dir=\$VM_SHARE_PATH_$i opts=\$VM_SHARE_OPTS_$i"
    mkdir -p "/newroot$dir" 2>/dev/null
    mount_9p "share$i" "/newroot$dir" "$opts" || die "cannot mount share$i at $dir"
    i=$((i + 1))
done

chroot /newroot /bin/bash "$VM_GUEST_RUN" /run/vm
echo "vm-init: guest-run exited with $?"
sync
poweroff -f
sleep 5
exit 1
