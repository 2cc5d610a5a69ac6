# nordprop worker image (used by docker-compose.yml; the scripts and tests don't need Docker).
#   docker build -t nordprop .
FROM node:20-bookworm-slim

WORKDIR /app

# Dependencies first, so source edits don't invalidate this layer.
# (@temporalio/core-bridge ships its native binary inside the npm package: no download step.)
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# Sources (.dockerignore keeps node_modules, dist/, .data/ and the Temporal CLI build out).
COPY . .
RUN npx --no-install tsc -p tsconfig.json \
 && mkdir -p /app/.data && chown node:node /app/.data

USER node
ENV NODE_ENV=production
EXPOSE 8080
CMD ["node", "bin/nordprop.js", "worker"]
