/**
 * Times the steps of a multi-table publish, so a run's `stepsMs` shows which table took long
 * (one publish transaction covers several merges; the activity only measures the whole).
 */
export interface StepTimer {
  /** Milliseconds per step name, filled as steps finish (also when a step throws). */
  readonly steps: Record<string, number>;
  timed<T>(step: string, work: () => Promise<T>): Promise<T>;
}

export function stepTimer(): StepTimer {
  const steps: Record<string, number> = {};
  return {
    steps,
    async timed(step, work) {
      const started = performance.now();
      try {
        return await work();
      } finally {
        steps[step] = Math.round(performance.now() - started);
      }
    },
  };
}
