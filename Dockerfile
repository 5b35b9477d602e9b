# syntax=docker/dockerfile:1
# browser-telemetry-bridge as a container: the daemon (`run`) by default, any other command with
# `docker run IMAGE <command> …` (tail, pool, check, demo).
#
#   docker build -t browser-telemetry-bridge .
#   docker run --rm -v bridge-state:/var/lib/bridge -p 127.0.0.1:9464:9464 \
#     -e BROWSER_API_URL=https://api.example.com -e BROWSER_API_KEY_FILE=/run/secrets/browser-api-key \
#     -e BRIDGE_SESSIONS=sess_123 -e OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 \
#     browser-telemetry-bridge
#
# Both stages use the same base image on purpose: better-sqlite3 is a native module, and the binary
# built (or fetched) in the build stage must match the Node ABI and the glibc of the runtime stage.
ARG NODE_IMAGE=node:22-bookworm-slim

# ---- build: install everything, compile TypeScript, then drop the dev dependencies ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3's install script tries a prebuilt binary first and compiles from source with
# node-gyp when none matches (another architecture, or no network to the prebuilt's host).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# Manifests first: the dependency layer is rebuilt only when they change, not on every source edit.
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY proto ./proto
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime: production dependencies, compiled code, the receiver's .proto files ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    BRIDGE_STATE_DIR=/var/lib/bridge \
    BRIDGE_LISTEN=0.0.0.0:9464
WORKDIR /app
# The code stays owned by root (read-only for the service); only the state directory is writable.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/proto ./proto
# `node` (uid 1000) ships with the official image. Create the state directory before declaring the
# volume so a fresh named volume is initialised with this ownership.
RUN mkdir -p /var/lib/bridge && chown node:node /var/lib/bridge
USER node
VOLUME ["/var/lib/bridge"]
EXPOSE 9464
# Slim images have no curl: ask /healthz with Node's own fetch, on the port BRIDGE_LISTEN names.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + ((process.env.BRIDGE_LISTEN || '').split(':').pop() || '9464') + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM goes straight to node (PID 1 is node itself, no shell): the daemon flushes its spool
# within shutdown.grace — give `docker stop -t` / terminationGracePeriodSeconds more than that.
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["run"]
