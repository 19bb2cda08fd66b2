#!/usr/bin/env bash
# Makes a Docker engine available for `npm run test:deploy` on a CI machine: installs Debian's docker.io,
# docker-compose and debootstrap when missing, and starts dockerd when none answers. dockerd runs with
# --iptables=false: CI machines here may not change the host's firewall; published ports then go through
# Docker's userland proxy. Prints one line and exits 0 when no engine can be started: the tests then skip.
set -uo pipefail

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in docker.io docker-compose debootstrap; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || { echo "ensure-docker: could not install ${missing[*]}"; exit 0; }
fi

if docker info >/dev/null 2>&1; then exit 0; fi
log=${TMPDIR:-/tmp}/dockerd.log
nohup dockerd --iptables=false >"$log" 2>&1 &
for _ in $(seq 1 60); do
  docker info >/dev/null 2>&1 && { echo "ensure-docker: dockerd started (log: $log)"; exit 0; }
  sleep 0.5
done
echo "ensure-docker: no Docker engine could be started here; see $log"
exit 0
