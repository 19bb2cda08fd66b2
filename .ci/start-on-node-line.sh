#!/usr/bin/env bash
# Starts the built unit on another supported Node.js line (from the registry, as the package's own runtime is) and
# waits until it answers; exits non-zero when it does not within the deadline.
#
#   .ci/start-on-node-line.sh LINE
set -euo pipefail
cd "$(dirname "$0")/.."

line=$1
node=$(bash scripts/deploy/node-runtime.sh --line "$line")/bin/node
data=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
"$node" dist/cli.js --port "$port" --data-dir "$data" >"$data/unit.log" 2>&1 &
unit=$!
trap 'kill "$unit" 2>/dev/null; wait "$unit" 2>/dev/null; rm -rf "$data"' EXIT

deadline=$((SECONDS + 60))
until info=$(curl -sf "http://127.0.0.1:$port/api/v1/sensor/metadata/sensor_info"); do
  if ! kill -0 "$unit" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
    echo "Node.js $line ($("$node" --version)): the unit did not answer" >&2
    cat "$data/unit.log" >&2
    exit 1
  fi
  sleep 0.2
done
echo "Node.js $line ($("$node" --version)): the unit answers, status $(echo "$info" | "$node" -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).status')"
