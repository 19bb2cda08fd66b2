#!/usr/bin/env bash
# `npm run package [-- --arch amd64|arm64]`: a self-contained Debian package for a real unit,
# pkg/NAME_VERSION_ARCH.deb, and the same tree as pkg/NAME_VERSION_ARCH.tar.xz (for a Yocto recipe or a
# RAUC/Mender bundle: docs/deployments.md). The architecture defaults to this machine's.
#
# /opt/lidar-sensor holds its own Node.js (node/: the registry's node-linux-<arch> of the LTS line in .nvmrc,
# integrity checked by scripts/deploy/node-runtime.sh), the built server (dist/, web/) and the production
# node_modules with better-sqlite3's Node-API binary for that architecture only. Beside it: the hardened systemd
# unit (enabled and started on install, as the system user lidar-sensor that postinst creates) with its PTP profile
# path unit and root helper, the example firmware hook (/usr/lib/lidar-sensor/firmware-hook, run as root by
# lidar-sensor-firmware.service at the server's request through /usr/lib/lidar-sensor/firmware-hook-request) and an
# empty firmware trust folder (/etc/lidar-sensor/firmware-trust). The state directory (/var/lib/lidar-sensor) is
# systemd's StateDirectory. Nothing needs the distribution's nodejs.
set -euo pipefail
cd "$(dirname "$0")/../.."

arch=$(dpkg --print-architecture)
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift 2 ;;
    *) echo "package-deb: unknown argument $1 (usage: --arch amd64|arm64)" >&2; exit 2 ;;
  esac
done
case $arch in
  amd64) cpu=x64 elf_machine='Advanced Micro Devices X86-64' ;;
  arm64) cpu=arm64 elf_machine=AArch64 ;;
  *) echo "package-deb: architecture $arch is not supported (amd64, arm64)" >&2; exit 2 ;;
esac

# The build runs on the LTS line it bundles (this machine's architecture), whatever node is first on PATH.
PATH=$(bash scripts/deploy/node-runtime.sh)/bin:$PATH
name=lidar-sensor
version=$(node -p 'require("./package.json").version')
out=pkg/${name}_${version}_${arch}

runtime=$(bash scripts/deploy/node-runtime.sh --arch "$arch")
node_version=$(node -p 'require(process.argv[1]).version' "$runtime/package.json")
node_integrity=$(cat "$runtime/INTEGRITY")

npm run build --silent
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
app=$stage/opt/$name

mkdir -p "$app/node/bin" "$stage/lib/systemd/system" "$stage/usr/lib/$name" "$stage/etc/$name/firmware-trust" \
  "$stage/usr/bin" "$stage/DEBIAN"
install -m 0755 "$runtime/bin/node" "$app/node/bin/node"
install -m 0644 "$runtime/LICENSE" "$app/node/LICENSE"
cp -a package.json package-lock.json dist web "$app/"
# Production dependencies only, from the installed tree; its contents, so a worktree whose node_modules is a
# symbolic link packages the real files.
mkdir -p "$app/node_modules"
cp -a node_modules/. "$app/node_modules/"
(cd "$app" && npm prune --omit=dev --offline --no-audit --no-fund --ignore-scripts >/dev/null)
rm -f "$app/package-lock.json"
# better-sqlite3 ships Node-API binaries for every platform (one binary serves every Node line). Keep the target's
# only; a local build/ would win over it at load time, and the C sources are for building.
sqlite=$app/node_modules/better-sqlite3
rm -rf "$sqlite/build" "$sqlite/src" "$sqlite/deps"
find "$sqlite/prebuilds" -type f ! -name "linux-$cpu.node" -delete
find "$app/node_modules" -depth -type d -empty -delete
# Every native file in the tree must be for the target: a dependency that brings a binary of this machine's
# architecture would fail only on the device.
while IFS= read -r binary; do
  machine=$(readelf -h "$binary" | sed -n 's/^ *Machine: *//p')
  if [ "$machine" != "$elf_machine" ]; then
    echo "package-deb: $binary is for $machine, not $arch" >&2
    exit 1
  fi
done < <(find "$app" -type f \( -name '*.node' -o -path '*/node/bin/node' \))
sqlite_version=$(node -p 'require(process.argv[1]).version' "$sqlite/package.json")

install -m 0644 deploy/lidar-sensor.service deploy/lidar-sensor-ptp-profile.path deploy/lidar-sensor-ptp-profile.service \
  deploy/lidar-sensor-firmware.path deploy/lidar-sensor-firmware.service "$stage/lib/systemd/system/"
install -m 0755 deploy/debian/firmware-hook deploy/debian/firmware-hook-request "$stage/usr/lib/$name/"
install -m 0755 deploy/debian/lidar-sensor-command "$stage/usr/bin/$name"

mkdir -p pkg
# The plain tree first (no package metadata): what an image build system installs by itself.
tar -C "$stage" --exclude=./DEBIAN --owner=0 --group=0 --sort=name -c . | xz -1 >"$out.tar.xz"

installed_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
# libatomic1 and libstdc++6: the bundled node links them; glibc 2.34: better-sqlite3's binary.
cat >"$stage/DEBIAN/control" <<CONTROL
Package: $name
Version: $version
Architecture: $arch
Maintainer: lidar-sensor developers <lidar-sensor@localhost>
Installed-Size: $installed_kb
Depends: systemd, iproute2, passwd, libc6 (>= 2.34), libstdc++6, libatomic1
Recommends: chrony, linuxptp, ethtool
Section: net
Priority: optional
Description: HTTP management server of a lidar sensor
 Serves the sensor's /api/v1 interface on port 80 with the linux hardware layer: configuration that
 survives power loss, alerts, time (chrony, ptp4l) and network status (iproute2), A/B firmware update
 through a bootloader hook, and the lidar and IMU UDP data streams.
 .
 Self-contained: it needs no Node.js from the distribution. Bundled under /opt/$name:
  Node.js $node_version ($cpu), the npm registry's node-linux-$cpu package, $node_integrity
  better-sqlite3 $sqlite_version, its Node-API binary for linux-$cpu
CONTROL
install -m 0755 deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm "$stage/DEBIAN/"

dpkg-deb --root-owner-group -Zxz -z1 --build "$stage" "$out.deb" >/dev/null
echo "$out.deb ($(du -h "$out.deb" | cut -f1)), $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1))"
