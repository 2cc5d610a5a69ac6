#!/usr/bin/env node
// The package bin runs the compiled CLI; `npm run build` (or the README's first command) builds it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('nordprop is not built yet: run `npm run build` in the project folder');
  process.exit(1);
}

// A worker parses registers row by row and allocates fast: with V8's default 16 MB young
// generation, garbage collection took a third of the staging time on a million addresses;
// 64 MB cut staging time by a third (and the sample generator's CPU time by a tenth). Heap
// sizes can only be set at start, so re-exec once.
const YOUNG_GENERATION = '--max-semi-space-size=64';
if (['worker', 'sample'].includes(process.argv[2]) && !process.execArgv.some((arg) => arg.startsWith('--max-semi-space-size'))) {
  const child = spawn(process.execPath, [YOUNG_GENERATION, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await import(main.href);
}
