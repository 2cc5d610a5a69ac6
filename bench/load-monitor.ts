import { readFile } from 'node:fs/promises';

/**
 * The machine's 1-minute load average, sampled through the whole run. On two cores the
 * benchmark alone keeps it near 1–2 (worker or ogr2ogr plus PostgreSQL); more means other
 * work competed for the CPU while the figures were taken.
 */

export interface LoadMonitor {
  stop(): number[];
}

async function oneMinuteLoad(): Promise<number | undefined> {
  const text = await readFile('/proc/loadavg', 'utf8').catch(() => '');
  const value = Number(text.split(' ')[0]);
  return Number.isFinite(value) && text ? value : undefined;
}

export function monitorLoad(intervalMs = 5000): LoadMonitor {
  const samples: number[] = [];
  const take = () => void oneMinuteLoad().then((value) => value !== undefined && samples.push(value));
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return samples;
    },
  };
}
