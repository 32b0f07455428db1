#!/usr/bin/env bash
# Installs what AnchorKit needs on Debian (run as root, or with sudo available):
# OpenCV 4.6 with contrib (aruco), Eigen, libjpeg and zlib (image checks), pkg-config, the photos the generator uses as
# textures (opencv-doc), AprilTag 3 (libapriltag-dev: the detector of the AprilTag dictionaries), libzxing-dev (zxing-cpp: QR and other 2-D codes),
# libgeographiclib-dev (GeographicLib: geodesics and local east-north-up frames), and GNU time.
set -euo pipefail
packages=(libopencv-dev libopencv-contrib-dev libeigen3-dev libjpeg-dev zlib1g-dev pkg-config opencv-doc libapriltag-dev libzxing-dev libgeographiclib-dev time)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "dependencies: all installed"
  exit 0
fi
echo "dependencies: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
