#!/usr/bin/env bash
# Lets this machine run arm64 programs under emulation, for the arm64 image and the arm64 device test: Debian's
# qemu-user-static and binfmt-support, then the kernel's binfmt_misc with qemu-aarch64 registered (flags F: the
# interpreter is opened once, so it also works inside containers and chroots). Prints one line and exits 0 when
# the kernel does not allow it (no binfmt_misc, or no right to mount or register it): the arm64 tests then skip.
set -uo pipefail

export DEBIAN_FRONTEND=noninteractive
entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
if [ "$(dpkg --print-architecture)" = arm64 ]; then exit 0; fi

missing=()
for p in qemu-user-static binfmt-support; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || { echo "setup-emulation: arm64 emulation skipped: could not install ${missing[*]}"; exit 0; }
fi
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null \
    || { echo "setup-emulation: arm64 emulation skipped: this kernel does not let binfmt_misc be mounted here"; exit 0; }
fi
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
if ! grep -qx enabled "$entry" 2>/dev/null; then
  echo "setup-emulation: arm64 emulation skipped: the kernel did not register qemu-aarch64 in binfmt_misc"
  exit 0
fi
echo "setup-emulation: arm64 programs run under $(sed -n 's/^interpreter //p' "$entry") ($(sed -n 's/^flags: //p' "$entry"))"
