import { defineConfig } from 'vitest/config';

/**
 * Vitest 4 and 5 can close a test worker's RPC channel while one of its own calls is still in
 * flight and report it as an unhandled error of a file whose tests all passed (vitest-dev/vitest
 * #11153: "Closing rpc while … was pending"). It is the likeliest cause, not a confirmed one, of
 * the one unhandled error a clean-clone CI run here ended on, outside any test of a file that
 * neither logs nor leaves work running (the record cut the error's text). That one error is
 * printed and not counted; every other unhandled error still fails the run.
 */
function isVitestTeardownRace(error: { name?: string; message?: string }): boolean | void {
  if (error.name !== 'EnvironmentTeardownError' || !/^\[vitest-worker\]: Closing rpc while/.test(error.message ?? '')) return;
  console.warn(`vitest's own teardown race, not counted: ${error.message}`);
  return false;
}

// The global setup runs in this process and imports lib/config.ts, which loads a developer's
// .env (the demo writes NORDPROP_INPUT_DIR there) into this process's environment, and every
// test worker inherits it: `test.env` below comes too late for that. Set here, before any import of it.
process.env.NORDPROP_ENV_FILE = '';

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
    onUnhandledError: isVitestTeardownRace,
  },
});
