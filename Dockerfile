# The nordprop app image: docker-compose.yml builds it once (service migrate) and runs it as
# every nordprop service (migrate, schedule, worker, api), each with its own command.
#   docker build -t nordprop:local .
FROM node:20-bookworm-slim

WORKDIR /app

# Dependencies first, so source edits don't invalidate this layer.
# (@temporalio/core-bridge ships its native binary inside the npm package: no download step.)
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# Sources (.dockerignore keeps node_modules, dist/, .data/ and the Temporal CLI build out).
# The services run dist/ (bin/nordprop.js starts dist/cli/main.js; the worker bundles
# dist/workflows/ when it starts) and read files beside it, such as the migrations in schema/;
# nothing at run time needs the dev dependencies, so they are pruned after the build.
COPY . .
RUN npx --no-install tsc -p tsconfig.json \
 && npm prune --omit=dev --no-audit --no-fund \
 && mkdir -p /app/.data/inbox && chown -R node:node /app/.data

USER node
ENV NODE_ENV=production
EXPOSE 8080
CMD ["node", "bin/nordprop.js", "worker"]
