#!/usr/bin/env bash
# Checks the served OpenAPI document with the third-party tools users point at it (not part of `npm test`:
# they come from the npm registry at run time, pinned):
#   - Spectral lint (@stoplight/spectral-cli, ruleset spectral:oas): errors fail the script, warnings are listed;
#   - Prism proxy (@stoplight/prism-cli, --errors): a set of requests goes through Prism to a fresh unit; every
#     answer the unit gives must pass Prism's response validation, and requests the document calls invalid must
#     be refused by Prism itself (proof that it validates at all: Prism 5 validates nothing when a document
#     declares the OAS 3.1 base `jsonSchemaDialect`, stoplightio/prism#2797; this document declares none).
# Usage: bash scripts/openapi-third-party.sh   (after npm run build; docs/api-description.md has the findings)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
port=$((40000 + RANDOM % 10000))
proxy=$((port + 1))
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
wait_for() { for _ in $(seq 1 240); do curl -s -o /dev/null "$1" && return 0; sleep 0.5; done; echo "no answer from $1" >&2; exit 2; }

node dist/cli.js --port "$port" --data-dir "$work/data" >"$work/unit.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$port/api/v1/openapi.json"
curl -s "http://127.0.0.1:$port/api/v1/openapi.json" -o "$work/openapi.json"

echo '== Spectral lint (spectral:oas)'
echo 'extends: ["spectral:oas"]' >"$work/.spectral.yaml"
npx --yes @stoplight/spectral-cli@6.16.3 lint "$work/openapi.json" --ruleset "$work/.spectral.yaml" \
  --fail-severity error --format text >"$work/spectral.txt" 2>&1 || { cat "$work/spectral.txt"; exit 1; }
awk '$2 == "warning" || $2 == "error" {print $2, $3}' "$work/spectral.txt" | sort | uniq -c
tail -1 "$work/spectral.txt"

echo '== Prism proxy (--errors)'
npx --yes @stoplight/prism-cli@5.16.0 proxy "$work/openapi.json" "http://127.0.0.1:$port" -p "$proxy" --errors \
  >"$work/prism.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$proxy/api/v1/sensor/telemetry"
failures=0
expect() { # expect STATUS METHOD PATH [BODY]
  local want=$1 method=$2 path=$3 body=${4:-}
  local args=(-s -o "$work/body" -w '%{http_code}' -X "$method" "http://127.0.0.1:$proxy$path")
  [ -n "$body" ] && args+=(-H 'content-type: application/json' --data-binary "$body")
  local got
  got=$(curl "${args[@]}")
  if [ "$got" = "$want" ]; then echo "ok   $method $path → $got"; else
    echo "FAIL $method $path → $got, expected $want: $(head -c 300 "$work/body")"
    failures=$((failures + 1))
  fi
}
for path in /api/v1/sensor/config '/api/v1/sensor/config?staging=true' /api/v1/sensor/metadata \
  /api/v1/sensor/metadata/sensor_info /api/v1/sensor/metadata/lidar_data_format /api/v1/sensor/metadata/beam_intrinsics \
  /api/v1/sensor/alerts '/api/v1/sensor/alerts?cursor=0&mode=summary' /api/v1/sensor/telemetry \
  /api/v1/system/firmware /api/v1/time/system /api/v1/time/sensor /api/v1/time/ptp /api/v1/system/network \
  /api/v1/user/data /api/v1/sensor/config/udp_port_lidar; do
  expect 200 GET "$path"
done
expect 204 POST /api/v1/sensor/config '{"udp_port_imu":7503}'
# Refused by the unit with a documented status (Prism checks the problem body against the document):
expect 400 POST /api/v1/sensor/config '{"signal_multiplier":2}'
expect 400 GET '/api/v1/sensor/config?x=1'
expect 404 GET /api/v1/sensor/metadata/
# Invalid per the document: Prism refuses them itself (422), so it validates.
expect 422 GET '/api/v1/sensor/alerts?cursor=bogus'
expect 422 PUT /api/v1/sensor/config/lidar_mode '"4096x10"'
expect 422 POST /api/v1/system/restart '{"delay_s":5}'
if grep -q 'Violation' "$work/prism.log"; then
  echo 'Prism found answers the document does not describe:'
  grep 'Violation' "$work/prism.log"
  failures=$((failures + 1))
fi
echo "prism proxy: $failures failure(s)"
exit $((failures > 0))
