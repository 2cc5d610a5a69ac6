import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { loadConfig } from '../../lib/config.js';
import { connectClient } from '../../lib/temporal/connection.js';
import { nightlyRefresh, type RefreshInput } from '../../workflows/refresh.js';
import { printJson } from '../output.js';

export const NIGHTLY_SCHEDULE_ID = 'nordprop-nightly-refresh';

/** The refresh input a schedule's action starts its runs with (none before the first option was set). */
const refreshArgs = (args: readonly unknown[] | undefined): RefreshInput => (args?.[0] ?? {}) as RefreshInput;

/**
 * The nightly refresh: 02:00 Europe/Oslo, a run still going at the next start is not overlapped.
 * `create` with `deriveConcurrency` sets how many derived datasets its runs compute at once, on
 * an existing schedule too.
 */
export async function scheduleCommand(action: string, options: { json: boolean; deriveConcurrency?: number }): Promise<number> {
  if (options.deriveConcurrency !== undefined && action !== 'create') {
    console.error(`--derive-concurrency is set with schedule create, not ${action}`);
    return 2;
  }
  const refreshInput: RefreshInput = options.deriveConcurrency === undefined ? {} : { deriveConcurrency: options.deriveConcurrency };
  const config = loadConfig();
  const { client, connection } = await connectClient(config);
  const handle = client.schedule.getHandle(NIGHTLY_SCHEDULE_ID);
  try {
    switch (action) {
      case 'create': {
        try {
          await client.schedule.create({
            scheduleId: NIGHTLY_SCHEDULE_ID,
            spec: { calendars: [{ hour: 2, minute: 0 }], timezone: 'Europe/Oslo' },
            policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
            action: { type: 'startWorkflow', workflowType: nightlyRefresh, workflowId: 'nightly', taskQueue: config.taskQueue, args: [refreshInput] },
          });
          if (!options.json) console.log(`created schedule ${NIGHTLY_SCHEDULE_ID}: nightly refresh at 02:00 Europe/Oslo, overlaps skipped`);
        } catch (error) {
          if (!(error instanceof ScheduleAlreadyRunning)) throw error;
          if (options.deriveConcurrency === undefined) {
            if (!options.json) console.log(`schedule ${NIGHTLY_SCHEDULE_ID} already exists`);
            break;
          }
          await handle.update((previous) => ({ ...previous, action: { ...previous.action, args: [{ ...refreshArgs(previous.action.args), ...refreshInput }] } }));
          if (!options.json) console.log(`schedule ${NIGHTLY_SCHEDULE_ID} already exists: its runs now compute ${options.deriveConcurrency} derived datasets at once`);
        }
        break;
      }
      case 'pause':
        await handle.pause('paused with nordprop schedule pause');
        break;
      case 'unpause':
        await handle.unpause('unpaused with nordprop schedule unpause');
        break;
      case 'trigger':
        await handle.trigger(ScheduleOverlapPolicy.SKIP);
        if (!options.json) console.log(`triggered ${NIGHTLY_SCHEDULE_ID}; see nordprop runs`);
        break;
      case 'describe':
        break;
      default:
        console.error(`unknown schedule action "${action}": use create, describe, pause, unpause or trigger`);
        return 2;
    }
    const description = await handle.describe();
    const summary = {
      scheduleId: NIGHTLY_SCHEDULE_ID,
      paused: description.state.paused,
      note: description.state.note ?? null,
      timezone: description.spec.timezone ?? null,
      nextActionTimes: description.info.nextActionTimes.slice(0, 3).map((d) => d.toISOString()),
      recentActions: description.info.recentActions.slice(-5).map((a) => ({ scheduledAt: a.scheduledAt.toISOString(), workflowId: a.action.workflow.workflowId })),
      overlap: description.policies.overlap,
      deriveConcurrency: refreshArgs(description.action.args).deriveConcurrency ?? null,
    };
    if (options.json) printJson(summary);
    else if (action === 'describe' || action === 'pause' || action === 'unpause') {
      const derive = summary.deriveConcurrency === null ? '' : `, ${summary.deriveConcurrency} derived datasets at once`;
      console.log(`${summary.scheduleId}: ${summary.paused ? 'paused' : 'active'} (${summary.timezone}), next: ${summary.nextActionTimes.join(', ')}${derive}`);
      for (const recent of summary.recentActions) console.log(`  ran ${recent.scheduledAt} → ${recent.workflowId}`);
    }
    return 0;
  } finally {
    await connection.close();
  }
}
