# model-gateway-mock as a container, e.g. a CI service container:
#   docker build -t model-gateway-mock .
#   docker run --rm -p 4010:4010 -v "$PWD/my-fixtures:/fixtures:ro" model-gateway-mock [--seed 1] [--fixtures /fixtures]
# (my-fixtures: a folder of your fixture files)
# The image runs the packed npm package, exactly what `npx model-gateway-mock` runs.

FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the build needs only the TypeScript compiler and gpt-tokenizer's ranks (the `node`
# devDependency's binary is not needed).
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json README.md LICENSE CHANGELOG.md ./
COPY bin bin
COPY catalog catalog
COPY schemas schemas
COPY src src
COPY scripts scripts
RUN node scripts/build.ts \
 && npm pack --ignore-scripts --pack-destination /tmp

FROM node:24-slim
ENV NODE_ENV=production
COPY --from=build /tmp/model-gateway-mock-*.tgz /tmp/
# Installs the package and its dependencies (msw, a peer, comes with them).
RUN npm install --global --no-audit --no-fund /tmp/model-gateway-mock-*.tgz \
 && rm /tmp/model-gateway-mock-*.tgz \
 && npm cache clean --force
# The node image's unprivileged user.
USER node
WORKDIR /home/node
EXPOSE 4010
# The slim image has no curl: Node's fetch asks the control plane.
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MGM_PORT || 4010) + '/__admin/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Host and port as variables, not flags, so that `docker run -e MGM_PORT=…` (or any MGM_* option) takes effect.
ENV MGM_HOST=0.0.0.0 MGM_PORT=4010
# A container starts fresh each time: Node's compile cache (on in the CLI) would only be written, never read.
ENV NODE_DISABLE_COMPILE_CACHE=1
# The CLI stops cleanly on SIGTERM (docker stop); arguments given to `docker run` are appended.
ENTRYPOINT ["model-gateway-mock"]
