# Simulated (or real) lidar sensor management server.
#   docker build -t lidar-sensor .
#   docker run --rm -p 8080:80 -v sensor-data:/data lidar-sensor
# NODE_IMAGE picks the base of both stages: the public Node image by default; where no registry is reachable,
# a local Debian 12 + Node base (scripts/deploy/build-base-image.sh) with --build-arg NODE_IMAGE=....
ARG NODE_IMAGE=node:22-bookworm-slim

# Build stage: compiles TypeScript, bundles the CLI, builds the better-sqlite3 native module.
FROM ${NODE_IMAGE} AS build
# node-gyp needs python3, make and g++; the slim and local bases lack them. --no-install-recommends keeps
# Debian's ca-certificates out: it would rebuild the CA bundle a local base brings for its registry.
RUN if ! command -v g++ >/dev/null || ! command -v make >/dev/null || ! command -v python3 >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
      && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
# The build's second step bundles the CLI and the emitter worker (esbuild, a development dependency) and
# compiles the validators ahead of time (Ajv's standalone code): scripts/bundle.mjs and the modules beside it
# that it imports (every top-level .mjs, so a new one cannot be left out of the image's build).
COPY scripts/*.mjs ./scripts/
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev
# The launcher of the `--network host` recipe (deploy/docker/port80-launcher.c says why it exists).
COPY deploy/docker/port80-launcher.c ./deploy/docker/
RUN g++ -x c -O2 -Wall -Werror -o /app/node-port80 deploy/docker/port80-launcher.c

# Runtime stage: production dependencies and compiled JavaScript only.
FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web ./web
RUN mkdir -p /data && chown node:node /data
# The unit answers on port 80 (clients always use 80) as the unprivileged user `node`, with no capability:
# Docker (20.10 and later) sets net.ipv4.ip_unprivileged_port_start=0 in a container's network namespace,
# so `--cap-drop ALL` works too. With `--network host` the unit is in the host's namespace, where port 80 needs
# CAP_NET_BIND_SERVICE: `--entrypoint node-port80` starts node with that capability alone (docs/deployments.md).
# The capability is written here, in the stage that runs (a copy between stages may drop file attributes);
# setcap's package is removed again once it has written it.
COPY --from=build /app/node-port80 /usr/local/bin/node-port80
RUN if command -v setcap >/dev/null; then setcap cap_net_bind_service=+p /usr/local/bin/node-port80; \
    else apt-get update && apt-get install -y --no-install-recommends libcap2-bin \
      && setcap cap_net_bind_service=+p /usr/local/bin/node-port80 \
      && apt-get purge -y libcap2-bin && apt-get autoremove -y && rm -rf /var/lib/apt/lists/*; fi
USER node
# The simulator listens on loopback by default; a container's unit answers on every address of the container.
ENV NODE_ENV=production \
    SENSOR_HOST=0.0.0.0 \
    SENSOR_PORT=80 \
    SENSOR_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 80/tcp
# Asks the port the unit really listens on: the health check reads the main process's own options
# (`docker run lidar-sensor --port 8081`, or -e SENSOR_PORT=8081), not a fixed 80.
HEALTHCHECK --interval=10s --timeout=10s --start-period=15s --retries=3 \
  CMD ["node", "dist/healthcheck.js"]
# SIGTERM (docker stop) closes the unit gracefully: streams stopped, database closed, exit status 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli.js"]
