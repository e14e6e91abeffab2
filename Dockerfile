# Build: docker build -t sluice:0.1.0 .
# Another supported line: docker build --build-arg NODE_IMAGE=node:24-trixie-slim -t sluice:0.1.0 .
#
# Debian 13 (trixie, glibc 2.41) because the uWebSockets.js build for Node 22 and 24 needs
# glibc 2.38 or newer: on bookworm (2.36) the service refuses to start.
ARG NODE_IMAGE=node:22-trixie-slim

FROM ${NODE_IMAGE} AS build
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
# The uWebSockets.js packages ship binaries for every OS and Node ABI (over 100 MB); keep this
# image's, and fail the build here, not at start, if no build loads on this Node and glibc.
RUN find node_modules/uws-modern node_modules/uWebSockets.js -name 'uws_*.node' \
      ! -name "uws_linux_$(node -p process.arch)_$(node -p process.versions.modules).node" -delete \
 && node --input-type=module -e "const { uwsBuild } = await import('./dist/src/http/uws.js'); console.log(uwsBuild().name)"

FROM ${NODE_IMAGE}
# Charts of the tool gateway render their text with this font; without one they have no labels.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Owned by root and read-only to the service: it writes only to its data directory.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/schemas schemas
# `serve --demo` stores the example dashboards beside the demo data.
COPY examples examples
RUN mkdir -p /data && chown node:node /data
# The image's unprivileged user (uid 1000, matching fsGroup in k8s/sluice.yaml).
USER node
ENV SVC_DATA_DIR=/data
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["serve"]
