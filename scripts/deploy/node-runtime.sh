#!/usr/bin/env bash
# A Node.js runtime from the npm registry's node-linux-<arch> package, kept in a cache folder; prints its folder
# (bin/node, include/node, LICENSE).
#
#   scripts/deploy/node-runtime.sh [--line N] [--arch amd64|arm64]
#
# --line: the Node.js major line (default: .nvmrc, the LTS line the package bundles and CI runs the suite on).
# --arch: Debian's architecture name (default: this machine's). The tarball's SHA-512 is computed here and must
# equal the registry's dist.integrity for that exact version, or nothing is unpacked; a cached folder is used only
# when the tarball beside it still matches. LIDAR_CACHE_DIR moves the cache (default ~/.cache/lidar-sensor).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

line=$(tr -d ' \n' <"$root/.nvmrc")
arch=$(dpkg --print-architecture)
while [ $# -gt 0 ]; do
  case $1 in
    --line) line=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    *) echo "node-runtime: unknown argument $1" >&2; exit 2 ;;
  esac
done
case $arch in
  amd64) cpu=x64 ;;
  arm64) cpu=arm64 ;;
  *) echo "node-runtime: no Node.js package for architecture $arch" >&2; exit 2 ;;
esac

package=node-linux-$cpu
# The newest release of the line (npm view lists a range's versions in no numeric order).
version=$(npm view "$package@$line" version --json | tr -d '[]", ' | grep . | sort -V | tail -1)
expected=$(npm view "$package@$version" dist.integrity)
cache=${LIDAR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lidar-sensor}/node
dir=$cache/$package-$version
tarball=$cache/$package-$version.tgz

# With the node that runs npm here (npm needs one anyway): no other tool to install.
integrity() {
  node -e 'const hash = require("crypto").createHash("sha512");
    hash.update(require("fs").readFileSync(process.argv[1]));
    console.log(`sha512-${hash.digest("base64")}`)' "$1"
}

if [ ! -f "$tarball" ] || [ "$(integrity "$tarball")" != "$expected" ]; then
  mkdir -p "$cache"
  rm -rf "$dir" "$tarball"
  (cd "$cache" && npm pack "$package@$version" --silent >/dev/null)
fi
actual=$(integrity "$tarball")
if [ "$actual" != "$expected" ]; then
  echo "node-runtime: $package@$version: the tarball's $actual is not the registry's $expected" >&2
  rm -f "$tarball"
  exit 1
fi
if [ ! -x "$dir/bin/node" ]; then
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  tar -xzf "$tarball" -C "$dir.tmp" --strip-components=1
  echo "$expected" >"$dir.tmp/INTEGRITY"
  mv "$dir.tmp" "$dir"
fi
echo "$dir"
