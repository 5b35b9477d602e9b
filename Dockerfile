# syntax=docker/dockerfile:1
# browser-telemetry-bridge as a container: the daemon (`run`) by default, any other command with
# `docker run IMAGE <command> …` (tail, pool, check, demo, simulate, receive), and in a running
# container as `docker exec CONTAINER browser-telemetry-bridge top` (the command is on the PATH).
#
#   docker build -t browser-telemetry-bridge .
#   printf %s "$BROWSER_API_KEY" > browser-api-key      # the session service's key, as a file
#   docker run --rm --name bridge -v bridge-state:/var/lib/bridge -p 127.0.0.1:9464:9464 \
#     -v "$PWD/browser-api-key:/run/secrets/browser-api-key:ro" \
#     -e BROWSER_API_URL=https://api.example.com -e BROWSER_API_KEY_FILE=/run/secrets/browser-api-key \
#     -e BRIDGE_CONTROL_TOKEN="$(openssl rand -hex 32)" \
#     -e BRIDGE_SESSIONS=sess_123 -e OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 \
#     browser-telemetry-bridge
#   docker exec -it bridge browser-telemetry-bridge top
#
# The key file must be readable by the image's user (uid 1000). The control token opens
# PUT/DELETE /v1/sessions, which the image's listener on 0.0.0.0 otherwise keeps closed; `top` in
# the container reads it from the same variable.
#
# Both stages use the same base image on purpose: better-sqlite3 is a native module, and the binary
# built (or fetched) in the build stage must match the Node ABI and the glibc of the runtime stage.
# Node 24 LTS: the line CI, the tests and the benchmark's figures run on (package.json engines
# admits 22.15 and later; CI also runs the suite on 22).
ARG NODE_IMAGE=node:24-bookworm-slim

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
 && npm prune --omit=dev --omit=optional --no-audit --no-fund \
 && npm cache clean --force
# The runtime needs better-sqlite3's compiled addon and its lib/, not the ~30 MB the native build
# leaves behind (object files, the static library, the SQLite amalgamation and C++ sources, a test
# extension). The addon stays where `bindings` looks for it.
RUN b=node_modules/better-sqlite3 \
 && cp $b/build/Release/better_sqlite3.node /tmp/better_sqlite3.node \
 && rm -rf $b/build $b/deps $b/src $b/binding.gyp \
 && mkdir -p $b/build/Release \
 && mv /tmp/better_sqlite3.node $b/build/Release/better_sqlite3.node \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"

# ---- runtime: production dependencies, compiled code, the receiver's .proto files ----
FROM ${NODE_IMAGE} AS runtime
# The HTTP surface listens on every interface so probes and scrapers reach /healthz, /readyz and
# /metrics. The control API (/v1/sessions) is then closed unless BRIDGE_CONTROL_TOKEN is set (or the
# BRIDGE_CONTROL_INSECURE=true opt-out); the daemon says at start which it is.
ENV NODE_ENV=production \
    BRIDGE_STATE_DIR=/var/lib/bridge \
    BRIDGE_LISTEN=0.0.0.0:9464
WORKDIR /app
# The code stays owned by root (read-only for the service); only the state directory is writable.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/proto ./proto
# `browser-telemetry-bridge` on the PATH, as `npm install -g` puts it: `docker exec … browser-telemetry-bridge top`.
RUN chmod 755 dist/cli/main.js && ln -s /app/dist/cli/main.js /usr/local/bin/browser-telemetry-bridge
# `node` (uid 1000) ships with the official image. Create the state directory before declaring the
# volume so a fresh named volume is initialised with this ownership.
RUN mkdir -p /var/lib/bridge && chown node:node /var/lib/bridge && chmod 700 /var/lib/bridge
USER node
VOLUME ["/var/lib/bridge"]
EXPOSE 9464
# Slim images have no curl: a small Node script asks /healthz where BRIDGE_LISTEN says (a wildcard
# on loopback). With BRIDGE_LISTEN=off there is nothing to ask and it passes: node is PID 1, so the
# container's running state already is the daemon's liveness. Set BRIDGE_LISTEN even when a
# configuration file also sets `listen:`; the health check reads only the variable.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "dist/cli/healthcheck.js"]
# SIGTERM goes straight to node (PID 1 is node itself, no shell): the daemon flushes its spool
# within shutdown.grace — give `docker stop -t` / terminationGracePeriodSeconds more than that.
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["run"]
