#!/usr/bin/env bash
# Builds a local Debian 12 + Node.js base image, for machines that reach no container registry (CI here).
#
#   scripts/deploy/build-base-image.sh [IMAGE]        (default IMAGE: lidar-sensor-base:bookworm)
#
# One root file system serves both deployments the tests run: the Dockerfile's two stages
# (`docker build --build-arg NODE_IMAGE=IMAGE`) and the device test, which boots it with systemd as PID 1.
# So it holds systemd, chrony, linuxptp, iproute2 and ethtool beside Node. Node, npm and Node's headers (node-gyp
# builds better-sqlite3 against them: no header download) are this machine's; so is the CA bundle, which
# holds the certificate of the registry proxy that the container's npm must trust. Debian's ca-certificates
# package is left out on purpose: installing it would rebuild the bundle without that certificate.
set -euo pipefail

image=${1:-lidar-sensor-base:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")

root=$(mktemp -d /var/tmp/lidar-base.XXXXXX)
trap 'rm -rf "$root"' EXIT

debootstrap --variant=minbase \
  --include=systemd,systemd-sysv,dbus,chrony,linuxptp,iproute2,ethtool,procps,libcap2-bin \
  bookworm "$root" "$mirror" >/dev/null

install -m 0755 "$node_bin" "$root/usr/bin/node"
mkdir -p "$root/usr/lib/node_modules" "$root/usr/include"
cp -a "$npm_dir" "$root/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
[ -d /usr/include/node ] && cp -a /usr/include/node "$root/usr/include/node"
mkdir -p "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
chroot "$root" useradd --create-home --uid 1000 --user-group --shell /bin/bash node
# An image, not a booted system: no apt lists, no machine id (systemd makes one at first boot).
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
: >"$root/etc/machine-id"

tar -C "$root" -c . | docker import \
  -c 'ENV LANG=C.UTF-8 npm_config_nodedir=/usr NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  -c 'CMD ["/bin/bash"]' - "$image" >/dev/null
echo "$image"
