import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Integration suites share one Temporal dev server and one PostgreSQL; two cores.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 120_000,
    // Tests configure through the environment; never read a developer's .env.
    env: { NORDPROP_ENV_FILE: '' },
    hookTimeout: 120_000,
  },
});
