import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/**
 * The activities this worker process is running, by type and the source or dataset they work
 * on ("stageArtifact se-building"): what the event-loop watch names when the loop stalls, so an
 * operator reads which work held it up.
 */
const running = new Map<number, string>();
let next = 0;

export const trackRunningActivities: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, nextCall) {
      const subject = input.args[0] as { sourceId?: unknown; datasetId?: unknown; country?: unknown } | undefined;
      const on = [subject?.sourceId ?? subject?.datasetId, subject?.datasetId ? subject.country : undefined].filter((part) => typeof part === 'string').join(' ');
      const key = next++;
      running.set(key, on ? `${ctx.info.activityType} ${on}` : ctx.info.activityType);
      try {
        return await nextCall(input);
      } finally {
        running.delete(key);
      }
    },
  },
});

/** What runs now, each kind once with its count ("stageArtifact se-building", "planRun ×2"). */
export function runningActivities(): string[] {
  const counts = new Map<string, number>();
  for (const name of running.values()) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name));
}
