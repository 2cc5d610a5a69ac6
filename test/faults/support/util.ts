export { freePort } from '../../../lib/net/free-port.js';

/**
 * Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`
 * naming `what`. An error thrown by `check` fails at once, unless `retryErrors`.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  options: { intervalMs?: number; retryErrors?: boolean } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const intervalMs = options.intervalMs ?? 50;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      if (!options.retryErrors) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

const exitHooks = new Set<() => void>();
let exitListening = false;

/** Runs `hook` (synchronously) if the test process exits without having removed it: no server outlives the suite. Returns the remover. */
export function onProcessExit(hook: () => void): () => void {
  if (!exitListening) {
    exitListening = true;
    process.once('exit', () => {
      for (const h of exitHooks) h();
    });
  }
  exitHooks.add(hook);
  return () => exitHooks.delete(hook);
}
