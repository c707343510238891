#!/usr/bin/env bash
# Checks the example units with `systemd-analyze verify`: circadify-monitor.service alone,
# and with its metrics drop-in, their ExecStart pointed at CIRCADIFY (the unit's
# /usr/local/bin/circadify need not exist here). Also checks the hardening the README
# promises is in them. Exit 0 when systemd-analyze finds nothing.
#
#   Tools/systemd/verify-units.sh CIRCADIFY
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 PATH-TO-circadify" >&2; exit 2; }
binary=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for key in DynamicUser=yes SupplementaryGroups=video DevicePolicy=closed "DeviceAllow=/dev/video0 rw" \
    ProtectSystem=strict ProtectHome=yes PrivateNetwork=yes NoNewPrivileges=yes; do
    grep -qx "$key" "$here/circadify-monitor.service" || { echo "circadify-monitor.service lacks $key" >&2; exit 1; }
done
grep -qx "PrivateNetwork=no" "$here/circadify-monitor.service.d/metrics.conf" ||
    { echo "the metrics drop-in does not open the network" >&2; exit 1; }

verify() { # folder: the unit (and drop-in) as installed there
    local out
    # A path, not a name (a name is looked up in the working directory too); its folder's
    # circadify-monitor.service.d/ drop-ins are read with it.
    out=$(cd "$1" && systemd-analyze verify --man=no "$1/circadify-monitor.service" 2>&1) || {
        echo "$out" >&2
        return 1
    }
    # Some findings are only printed: anything about our unit fails the check.
    if grep -i "circadify" <<<"$out" >&2; then return 1; fi
}

mkdir -p "$work/plain" "$work/metrics/circadify-monitor.service.d"
sed "s|/usr/local/bin/circadify|$binary|" "$here/circadify-monitor.service" >"$work/plain/circadify-monitor.service"
cp "$work/plain/circadify-monitor.service" "$work/metrics/"
sed "s|/usr/local/bin/circadify|$binary|" "$here/circadify-monitor.service.d/metrics.conf" \
    >"$work/metrics/circadify-monitor.service.d/metrics.conf"
verify "$work/plain"
verify "$work/metrics"
echo "systemd-analyze verify: circadify-monitor.service, with and without the metrics drop-in: no finding"
