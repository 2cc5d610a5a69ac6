#!/usr/bin/env node
// The package bin runs the compiled CLI; `npm run build` (or the README's first command) builds it.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('nordprop is not built yet: run `npm run build` in the project folder');
  process.exit(1);
}
await import(main.href);
