#!/usr/bin/env bash
# Builds the local Debian 12 images the deployment tests run, for machines that reach no container registry (CI here).
#
#   scripts/deploy/build-base-image.sh [--arch amd64|arm64] [--device-image NAME] [IMAGE]
#
# One debootstrap root (systemd, chrony, linuxptp, iproute2, ethtool) makes two images:
# - the device (--device-image, default lidar-sensor-device:bookworm-ARCH): a stock Debian 12 with no Node.js at
#   all, booted with systemd as PID 1 by the device test, which installs the self-contained package on it;
# - the Node base (IMAGE, default lidar-sensor-base:bookworm, or lidar-sensor-base:bookworm-arm64), the
#   Dockerfile's `--build-arg NODE_IMAGE=IMAGE`: the device plus the LTS line's Node.js for ARCH from the registry
#   (scripts/deploy/node-runtime.sh, with its headers), this machine's npm (JavaScript: any architecture), a `node`
#   user, and this machine's CA bundle, which holds the certificate of the registry proxy the container's npm must
#   trust. Debian's ca-certificates package is left out on purpose: installing it would rebuild the bundle
#   without that certificate.
# Both images carry ARCH as their platform, so `docker build --platform linux/arm64` finds its base locally. An
# arm64 root needs emulation (scripts/deploy/setup-emulation.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

arch=$(dpkg --print-architecture)
image=''
device=''
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift 2 ;;
    --device-image) device=$2; shift 2 ;;
    *) image=$1; shift ;;
  esac
done
suffix=$([ "$arch" = amd64 ] && echo '' || echo "-$arch")
image=${image:-lidar-sensor-base:bookworm$suffix}
device=${device:-lidar-sensor-device:bookworm-$arch}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
runtime=$(bash "$here/node-runtime.sh" --arch "$arch")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")

work=$(mktemp -d /var/tmp/lidar-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root

debootstrap --arch "$arch" --variant=minbase \
  --include=systemd,systemd-sysv,dbus,chrony,linuxptp,iproute2,ethtool,procps,libcap2-bin \
  bookworm "$root" "$mirror" >/dev/null
# An image, not a booted system: no machine id (systemd makes one at first boot).
: >"$root/etc/machine-id"
# The device keeps its package lists, and apt's cache holds the libraries the package's bundled Node.js links
# beyond a minimal Debian (not installed): the device test's container has no route to the mirror (dockerd runs
# without iptables here), so apt takes them from the cache as it would from the mirror.
device_deps=libatomic1
chroot "$root" sh -c "apt-get update -qq && apt-get install -y -qq -o Dpkg::Use-Pty=0 --download-only --no-install-recommends $device_deps >/dev/null"
rm -rf "$root"/var/cache/apt/*.bin

# IMAGE from the root as it is now, with `docker build` from scratch: unlike `docker import`, it records the platform.
import_root() {
  local tag=$1 env=$2
  tar -C "$root" -c . >"$work/root.tar"
  printf 'FROM scratch\nADD root.tar /\nENV %s\nCMD ["/bin/bash"]\n' "$env" >"$work/Dockerfile"
  docker build -q --force-rm --platform "linux/$arch" -t "$tag" -f "$work/Dockerfile" "$work" >/dev/null
  rm -f "$work/root.tar"
}
import_root "$device" 'LANG=C.UTF-8'

# The base installs them itself, and keeps no lists or cache.
chroot "$root" sh -c "apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends $device_deps >/dev/null"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
install -m 0755 "$runtime/bin/node" "$root/usr/bin/node"
mkdir -p "$root/usr/lib/node_modules" "$root/usr/include"
cp -a "$npm_dir" "$root/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
cp -a "$runtime/include/node" "$root/usr/include/node"
mkdir -p "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
chroot "$root" useradd --create-home --uid 1000 --user-group --shell /bin/bash node
chroot "$root" node --version >/dev/null
import_root "$image" 'LANG=C.UTF-8 npm_config_nodedir=/usr NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt'
echo "$image $device"
