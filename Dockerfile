# The Hub image. It talks to the PostgreSQL named by DATABASE_URL (docker-compose.yml provides one).
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/hub/package.json packages/hub/
COPY packages/agent/package.json packages/agent/
RUN npm ci --omit=dev --no-audit --no-fund
COPY packages packages
COPY db db
EXPOSE 8080
CMD ["node", "packages/hub/src/main.ts"]
