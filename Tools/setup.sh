#!/usr/bin/env bash
# Installs the Debian packages the build needs (the design card's three C
# libraries; libjpeg62-turbo-dev, the same libjpeg-turbo as libturbojpeg0-dev,
# whose libjpeg API lets the MJPEG decoder stop at the last row a frame needs;
# opencv-data for the face detector's trained cascade XML files: data only, no
# OpenCV code), running apt-get only when something is missing.
# Usage: Tools/setup.sh [EXTRA-PACKAGE ...]
set -euo pipefail

packages=(libv4l-dev libfftw3-dev libturbojpeg0-dev libjpeg62-turbo-dev opencv-data "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
echo "setup: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
