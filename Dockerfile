# Build: docker build -t sluice:0.1.0 .
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json vitest.config.ts ./
COPY src src
COPY engine engine
COPY bench bench
COPY schemas schemas
COPY test test
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/schemas schemas
# Charts of the tool gateway render their text with this font; without one they have no labels.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
RUN mkdir -p /data && chown node:node /data
USER node
ENV SVC_DATA_DIR=/data
EXPOSE 8080
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["serve"]
