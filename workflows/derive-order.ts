import { ApplicationFailure } from '@temporalio/common';
import type { PlannedDerivation } from '../activities/derive.js';

/**
 * How many derived datasets run at once when the caller does not say: as many as ran before the
 * datasets were ordered by their chains (the two countries' chains side by side), which the
 * worker's activity slots and PostgreSQL's two cores here are sized for.
 */
export const DEFAULT_DERIVE_CONCURRENCY = 2;

/**
 * Runs the planned derivations, each after the planned datasets of its country it reads
 * (`dependsOn`), at most `concurrency` at a time, and of those ready the one heading the longest
 * remaining chain first (list scheduling by critical path), ties in the plan's order. A chain's
 * length is its datasets' last computation times.
 *
 * Run per country one after another, Sweden's chain (42 s on a changed night at 0.05 ×
 * national) kept one core busy for 10 s after Norway's (32 s) had ended, while its
 * tenants and utilization, which read neither each other nor comparables, waited.
 *
 * `run` is expected to settle with the dataset's outcome, a failure included (the workflow
 * ledgers it): its dependents then run and read the dependency's previous live result. A
 * rejection (a cancelled workflow) stops the scheduling and is thrown.
 */
export async function runInDependencyOrder(
  planned: readonly PlannedDerivation[],
  concurrency: number,
  run: (step: PlannedDerivation) => Promise<unknown>,
): Promise<void> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    // The run's input is wrong: fail it, not its workflow task (which would retry for ever).
    throw ApplicationFailure.create({ type: 'InvalidInput', message: `derive concurrency must be a whole number of at least 1, not ${concurrency}`, nonRetryable: true });
  }
  const dependencies = new Map(planned.map((step) => [step.ledgerId, planned.filter((other) => other.country === step.country && step.dependsOn.includes(other.datasetId))]));
  const chainMs = chainLengths(planned, dependencies);
  const position = new Map(planned.map((step, index) => [step.ledgerId, index]));
  const finished = new Set<string>();
  const running = new Map<string, Promise<string>>();
  const waiting = [...planned];
  while (finished.size < planned.length) {
    const ready = waiting
      .filter((step) => dependencies.get(step.ledgerId)!.every((dependency) => finished.has(dependency.ledgerId)))
      .sort((a, b) => chainMs.get(b.ledgerId)! - chainMs.get(a.ledgerId)! || position.get(a.ledgerId)! - position.get(b.ledgerId)!);
    for (const step of ready.slice(0, concurrency - running.size)) {
      waiting.splice(waiting.indexOf(step), 1);
      running.set(step.ledgerId, run(step).then(() => step.ledgerId));
    }
    // Unreachable with a plan in dependency order; racing no promise would wait for ever.
    if (running.size === 0) throw new Error(`derived datasets that cannot start: ${waiting.map((step) => step.ledgerId).join(', ')}`);
    const done = await Promise.race(running.values());
    running.delete(done);
    finished.add(done);
  }
}

/**
 * Per derivation, its own last time plus the longest chain of the planned datasets that read it;
 * a dataset never computed counts 1 ms, so on a first run a longer chain of them goes first. The
 * plan lists each dataset after those it reads (planDerive: selectDatasets orders them and refuses
 * a cycle), so walked backwards every reader's chain is known before the dataset it reads.
 */
function chainLengths(planned: readonly PlannedDerivation[], dependencies: Map<string, PlannedDerivation[]>): Map<string, number> {
  const lengths = new Map<string, number>();
  for (const step of [...planned].reverse()) {
    const readers = planned.filter((other) => dependencies.get(other.ledgerId)!.includes(step));
    lengths.set(step.ledgerId, (step.lastMs ?? 1) + Math.max(0, ...readers.map((reader) => lengths.get(reader.ledgerId)!)));
  }
  return lengths;
}
