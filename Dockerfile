# Simulated (or real) lidar sensor management server.
#   docker build -t lidar-sensor .
#   docker run --rm -p 8080:80 -v sensor-data:/data lidar-sensor
# An arm64 image from the same file: docker build --platform linux/arm64 -t lidar-sensor:arm64 .
# NODE_IMAGE picks the base of both stages: the public Node image of the LTS line the Debian package bundles
# (.nvmrc) by default; where no registry is reachable, a local Debian 12 + Node base
# (scripts/deploy/build-base-image.sh [--arch arm64]) with --build-arg NODE_IMAGE=....
ARG NODE_IMAGE=node:26-bookworm-slim

# Build stage: compiles TypeScript, bundles the CLI.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install script has work to do here: better-sqlite3 brings its Node-API binary for every platform, and
# esbuild finds its platform's binary package without its postinstall. So the image needs no compiler, and an
# arm64 build under emulation runs no compiler either.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
# The build's second step bundles the CLI and the emitter worker (esbuild, a development dependency) and
# compiles the validators ahead of time (Ajv's standalone code): scripts/bundle.mjs and the modules beside it
# that it imports (every top-level .mjs, so a new one cannot be left out of the image's build).
COPY scripts/*.mjs ./scripts/
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev

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
COPY deploy/docker/node-port80 /usr/local/bin/node-port80
RUN mkdir -p /usr/local/lib/lidar-sensor && cp /usr/bin/setpriv /usr/local/lib/lidar-sensor/setpriv-port80 \
    && if command -v setcap >/dev/null; then setcap cap_net_bind_service=+p /usr/local/lib/lidar-sensor/setpriv-port80; \
    else apt-get update && apt-get install -y --no-install-recommends libcap2-bin \
      && setcap cap_net_bind_service=+p /usr/local/lib/lidar-sensor/setpriv-port80 \
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
