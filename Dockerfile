# Simulated (or real) lidar sensor management server.
#   docker build -t lidar-sensor .
#   docker run --rm -p 8080:80 -v sensor-data:/data lidar-sensor
# Build stage: compiles TypeScript, bundles the CLI, builds the better-sqlite3 native module (python3, make, g++).
FROM node:22-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
# The build's second step bundles the CLI and the emitter worker (esbuild, a development dependency).
COPY scripts/bundle.mjs ./scripts/bundle.mjs
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and compiled JavaScript only.
FROM node:22-bookworm-slim
# The unit answers on port 80 (clients always use 80) but runs as the unprivileged user `node`:
# give the node binary the one capability it needs to bind a low port.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libcap2-bin \
 && setcap cap_net_bind_service=+ep "$(readlink -f "$(command -v node)")" \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web ./web
RUN mkdir -p /data && chown node:node /data
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
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "dist/healthcheck.js"]
ENTRYPOINT ["node", "dist/cli.js"]
