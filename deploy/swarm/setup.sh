#!/usr/bin/env bash
# Creates the LAN network of deploy/swarm/stack.lan.yaml: a macvlan network that gives every unit its own
# address on the site's LAN. Run it once on every node (root, or a member of the docker group; the shim needs
# root), each with that node's LAN interface and its own slice of the LAN's addresses: Swarm's macvlan hands
# out addresses on each node from that node's IP_RANGE, so the slices must not overlap, and no DHCP server may
# hand them out. On a manager it also creates the swarm-scoped network the stack uses (once for the swarm).
#
#   PARENT=eth1 SUBNET=192.168.50.0/24 GATEWAY=192.168.50.1 IP_RANGE=192.168.50.64/27 deploy/swarm/setup.sh
#   deploy/swarm/setup.sh --remove          # after `docker stack rm`: the networks (and the shim) go again
#
# Optional: LAN_NETWORK (default lidar-lan, the name stack.lan.yaml uses), LAN_CONFIG (default
# lidar-lan-config), and SHIM_ADDRESS (e.g. 192.168.50.63/32): a node cannot reach its own macvlan units
# through PARENT (the kernel keeps a macvlan parent and its children apart), so setup.sh adds a macvlan
# "shim" interface SHIM_NAME (default lidar-lan-shim) on PARENT with that address and a route to IP_RANGE.
set -euo pipefail

network=${LAN_NETWORK:-lidar-lan}
config=${LAN_CONFIG:-lidar-lan-config}
shim=${SHIM_NAME:-lidar-lan-shim}

exists() { docker network inspect "$1" >/dev/null 2>&1; }

if [ "${1:-}" = --remove ]; then
  # The swarm-scoped network first: the configuration cannot go while a network is built from it.
  if exists "$network"; then docker network rm "$network" >/dev/null; fi
  if exists "$config"; then docker network rm "$config" >/dev/null; fi
  if ip link show "$shim" >/dev/null 2>&1; then ip link del "$shim"; fi
  echo "removed $network, $config and $shim"
  exit 0
fi

: "${PARENT:?PARENT: this node's interface on the LAN, e.g. eth1}"
: "${SUBNET:?SUBNET: the LAN, e.g. 192.168.50.0/24}"
: "${IP_RANGE:?IP_RANGE: this node's addresses for units, inside SUBNET, e.g. 192.168.50.64/27}"
ip link show "$PARENT" >/dev/null || { echo "setup.sh: no interface $PARENT on this node" >&2; exit 1; }

gateway=()
if [ -n "${GATEWAY:-}" ]; then gateway=(--gateway "$GATEWAY"); fi
if ! exists "$config"; then
  docker network create --config-only --subnet "$SUBNET" --ip-range "$IP_RANGE" "${gateway[@]}" \
    -o parent="$PARENT" -o macvlan_mode=bridge "$config" >/dev/null
fi
if [ "$(docker info --format '{{.Swarm.ControlAvailable}}')" = true ] && ! exists "$network"; then
  docker network create --driver macvlan --scope swarm --attachable --config-from "$config" "$network" >/dev/null
fi
if [ -n "${SHIM_ADDRESS:-}" ] && ! ip link show "$shim" >/dev/null 2>&1; then
  ip link add "$shim" link "$PARENT" type macvlan mode bridge
  ip address add "$SHIM_ADDRESS" dev "$shim"
  ip link set "$shim" up
  ip route add "$IP_RANGE" dev "$shim"
fi
echo "$network: units on $PARENT at $IP_RANGE of $SUBNET"
