#!/usr/bin/env node
// The package bin runs the compiled CLI; `npm run build` (or the README's first command) builds it.
import('../dist/cli/main.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    console.error('nordprop is not built yet: run `npm run build` in the project folder');
    process.exit(1);
  }
  throw error;
});
