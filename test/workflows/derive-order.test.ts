import { describe, expect, it } from 'vitest';
import type { PlannedDerivation } from '../../activities/derive.js';
import type { DerivedDatasetId } from '../../derive/dataset.js';
import { DATASETS, deriveLedgerId } from '../../derive/registry.js';
import { runInDependencyOrder } from '../../workflows/derive-order.js';
import { COUNTRIES, type Country } from '../../lib/domain/country.js';

/**
 * The order of the derived datasets, driven step by step: each started dataset waits until the
 * test settles it, so what is running at any moment is known exactly (no timing involved).
 */

/** The plan as planDerive makes it for both countries, with last times in ms where given. */
function plan(lastMs: Partial<Record<string, number>> = {}): PlannedDerivation[] {
  return COUNTRIES.flatMap((country: Country) =>
    DATASETS.map((d) => {
      const ledgerId = deriveLedgerId(d.id, country);
      return { datasetId: d.id, country, ledgerId, dependsOn: d.dependsOn ?? [], ...(lastMs[ledgerId] !== undefined ? { lastMs: lastMs[ledgerId] } : {}) };
    }),
  );
}

/** Runs the scheduler; `started` lists the ledger ids in the order they started, `running` those not yet settled. */
function drive(planned: PlannedDerivation[], concurrency: number) {
  const started: string[] = [];
  const pending = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  let peak = 0;
  const done = runInDependencyOrder(planned, concurrency, (step) => {
    started.push(step.ledgerId);
    return new Promise<void>((resolve, reject) => {
      pending.set(step.ledgerId, { resolve, reject });
      peak = Math.max(peak, pending.size);
    });
  });
  const settle = async (ledgerId: string, error?: Error) => {
    const step = pending.get(ledgerId);
    if (!step) throw new Error(`${ledgerId} is not running (running: ${[...pending.keys()].join(', ')})`);
    pending.delete(ledgerId);
    if (error) step.reject(error);
    else step.resolve();
    // Let the scheduler see the settled promise and start what it frees.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { started, running: () => [...pending.keys()].sort(), settle, done, peak: () => peak };
}

const id = (country: Country, dataset: DerivedDatasetId) => deriveLedgerId(dataset, country);

// The changed night at 0.05 × national (BENCHMARKS.md): Sweden's datasets take longer than Norway's.
const NIGHT_MS: Record<string, number> = {
  [id('NO', 'tenants')]: 3_000, [id('NO', 'utilization')]: 6_500, [id('NO', 'comparables')]: 11_300, [id('NO', 'valuations')]: 11_500,
  [id('SE', 'tenants')]: 8_000, [id('SE', 'utilization')]: 12_500, [id('SE', 'comparables')]: 14_300, [id('SE', 'valuations')]: 7_500,
};

describe('runInDependencyOrder', () => {
  it('runs the longest remaining chains first, not each country one dataset after another', async () => {
    const run = drive(plan(NIGHT_MS), 2);
    // comparables → valuations is each country's longest chain: 22.8 s in Norway, 21.8 s in Sweden.
    expect(run.running()).toEqual([id('NO', 'comparables'), id('SE', 'comparables')]);
    await run.settle(id('NO', 'comparables'));
    // Sweden's utilization (12.5 s) before Norway's valuations (11.5 s): no dataset waits for its country's others.
    expect(run.running()).toEqual([id('SE', 'comparables'), id('SE', 'utilization')]);
    await run.settle(id('SE', 'comparables'));
    expect(run.running()).toEqual([id('NO', 'valuations'), id('SE', 'utilization')]);
    for (const next of [id('NO', 'valuations'), id('SE', 'utilization'), id('SE', 'valuations'), id('SE', 'tenants'), id('NO', 'utilization'), id('NO', 'tenants')]) {
      await run.settle(next);
    }
    await run.done;
    // Then each freed slot to the longest of what is ready: Sweden's tenants (8 s), valuations (7.5 s), Norway's utilization, tenants.
    expect(run.started).toEqual([
      id('NO', 'comparables'), id('SE', 'comparables'), id('SE', 'utilization'), id('NO', 'valuations'),
      id('SE', 'tenants'), id('SE', 'valuations'), id('NO', 'utilization'), id('NO', 'tenants'),
    ]);
    expect(run.peak()).toBe(2);
  });

  it('starts a dataset only after the datasets of its country it reads have settled, failed or not', async () => {
    const run = drive(plan(), 8);
    // Everything but valuations at once; never computed, so the plan's order.
    expect(run.running()).toEqual([
      id('NO', 'comparables'), id('NO', 'tenants'), id('NO', 'utilization'), id('SE', 'comparables'), id('SE', 'tenants'), id('SE', 'utilization'),
    ]);
    await run.settle(id('SE', 'comparables')); // Sweden's comparables do not free Norway's valuations
    expect(run.running()).toContain(id('SE', 'valuations'));
    expect(run.running()).not.toContain(id('NO', 'valuations'));
    await run.settle(id('NO', 'comparables')); // settles with a failed outcome: the workflow ledgered it
    expect(run.running()).toContain(id('NO', 'valuations'));
    for (const ledgerId of run.running()) await run.settle(ledgerId);
    await run.done;
    expect(run.started).toHaveLength(8);
  });

  it('on a first run, starts the datasets others read first, then follows the plan', async () => {
    const run = drive(plan(), 1);
    const order: string[] = [];
    while (run.running().length) {
      const [only] = run.running();
      order.push(only);
      await run.settle(only);
    }
    await run.done;
    // comparables → valuations is the longer chain; the rest in the plan's order, valuations once freed.
    expect(order).toEqual([
      id('NO', 'comparables'), id('SE', 'comparables'), id('NO', 'tenants'), id('NO', 'utilization'), id('NO', 'valuations'),
      id('SE', 'tenants'), id('SE', 'utilization'), id('SE', 'valuations'),
    ]);
    expect(run.peak()).toBe(1);
  });

  it('stops at a rejection (a cancelled run), and refuses a concurrency below one', async () => {
    const run = drive(plan(NIGHT_MS), 2);
    await run.settle(id('SE', 'comparables'), new Error('cancelled'));
    await expect(run.done).rejects.toThrow('cancelled');
    await expect(runInDependencyOrder(plan(), 0, async () => undefined)).rejects.toThrow(/at least 1, not 0/);
    await expect(runInDependencyOrder(plan(), 1.5, async () => undefined)).rejects.toThrow(/at least 1, not 1.5/);
  });
});
