/** The innermost cause's message: what went wrong, without Temporal's wrapping ("Activity task failed"). */
export function describeFailure(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}
