#!/usr/bin/env bash
# `npm run package`: one Debian package for a real unit, written to pkg/NAME_VERSION_ARCH.deb.
#
# It holds the built server (/opt/lidar-sensor: dist/, web/, production node_modules with better-sqlite3
# compiled for this architecture), the hardened systemd unit (enabled and started on install, as the system user
# lidar-sensor that postinst creates) with its PTP profile path unit and root helper, the example firmware hook
# (/usr/lib/lidar-sensor/firmware-hook, run as root by lidar-sensor-firmware.service at the server's request
# through /usr/lib/lidar-sensor/firmware-hook-request) and an empty firmware trust folder (/etc/lidar-sensor/firmware-trust).
# The state directory (/var/lib/lidar-sensor) is systemd's StateDirectory. Node.js 20 or newer must be at
# /usr/bin/node (Debian 12's own nodejs is 18: install NodeSource's or copy a build), checked before install.
set -euo pipefail
cd "$(dirname "$0")/../.."

name=lidar-sensor
version=$(node -p 'require("./package.json").version')
arch=$(dpkg --print-architecture)
out=pkg/${name}_${version}_${arch}.deb

npm run build --silent
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
app=$stage/opt/$name

mkdir -p "$app" "$stage/lib/systemd/system" "$stage/usr/lib/$name" "$stage/etc/$name/firmware-trust" "$stage/DEBIAN"
cp -a package.json package-lock.json dist web "$app/"
# Production dependencies only, from the installed tree (no second compile of better-sqlite3); its contents, so a
# worktree whose node_modules is a symbolic link packages the real files.
mkdir -p "$app/node_modules"
cp -a node_modules/. "$app/node_modules/"
(cd "$app" && npm prune --omit=dev --offline --no-audit --no-fund --ignore-scripts >/dev/null)
find "$app/node_modules" -depth -type d -empty -delete
rm -f "$app/package-lock.json"
install -m 0644 deploy/lidar-sensor.service deploy/lidar-sensor-ptp-profile.path deploy/lidar-sensor-ptp-profile.service \
  deploy/lidar-sensor-firmware.path deploy/lidar-sensor-firmware.service "$stage/lib/systemd/system/"
install -m 0755 deploy/debian/firmware-hook deploy/debian/firmware-hook-request "$stage/usr/lib/$name/"

installed_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<CONTROL
Package: $name
Version: $version
Architecture: $arch
Maintainer: lidar-sensor developers <lidar-sensor@localhost>
Installed-Size: $installed_kb
Depends: systemd, iproute2, passwd
Recommends: chrony, linuxptp, ethtool
Section: net
Priority: optional
Description: HTTP management server of a lidar sensor
 Serves the sensor's /api/v1 interface on port 80 with the linux hardware layer: configuration that
 survives power loss, alerts, time (chrony, ptp4l) and network status (iproute2), A/B firmware update
 through a bootloader hook, and the lidar and IMU UDP data streams.
CONTROL
install -m 0755 deploy/debian/preinst deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm "$stage/DEBIAN/"

mkdir -p pkg
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "$out ($(du -h "$out" | cut -f1))"
