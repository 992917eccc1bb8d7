# The Hub image. It talks to the PostgreSQL named by DATABASE_URL (docker-compose.yml provides one).

# The web console is built with the dev dependencies (Vite, React); the Hub image takes only its files.
FROM node:24-bookworm-slim AS console
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/hub/package.json packages/hub/
COPY packages/agent/package.json packages/agent/
COPY packages/console packages/console
RUN npm ci --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/hub/package.json packages/hub/
COPY packages/agent/package.json packages/agent/
COPY packages/console/package.json packages/console/
# --ignore-scripts: the root `prepare` builds the console, which needs dev dependencies; the console comes
# built from the first stage instead. `npm rebuild` then runs the runtime dependencies' own install scripts.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm rebuild
COPY packages packages
COPY --from=console /app/packages/console/dist packages/console/dist
COPY db db
EXPOSE 8080
CMD ["node", "packages/hub/src/main.ts"]
