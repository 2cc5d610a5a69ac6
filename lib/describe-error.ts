/**
 * What went wrong, in one line: the innermost cause's message, without the wrapping Temporal
 * adds (a workflow's "Activity task failed", a client ServiceError around the gRPC error) and
 * without the empty "Resolution note:" gRPC appends. Pure, so workflow code may use it too.
 */
export function describeError(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause) cause = cause.cause;
  const message = cause instanceof Error ? cause.message : String(cause);
  return message.replace(/\s*Resolution note:\s*$/, '');
}
