import { ensureApplicationFailure } from '@temporalio/common';
import { expect } from 'vitest';
import { InputFormatError } from '../../../sources/formats/input-error.js';

/** The error `run` fails with (the test fails if it does not). */
export async function failure(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure, but it succeeded');
}

/**
 * `error` is an InputFormatError with the message expected, and one the ingest workflow does
 * not retry: Temporal types an activity's failure by the error's constructor name (then its
 * name), as ensureApplicationFailure does here, and nonRetryableErrorTypes lists 'InputFormatError'.
 */
export function expectInputFormatError(error: Error, message: RegExp): void {
  expect(error.message).toMatch(message);
  expect(error).toBeInstanceOf(InputFormatError);
  expect(error.name).toBe('InputFormatError');
  expect(ensureApplicationFailure(error).type).toBe('InputFormatError');
  // The ingest workflow records the innermost cause's message: it must be this one.
  let innermost: Error = error;
  while (innermost.cause instanceof Error) innermost = innermost.cause;
  expect(innermost).toBe(error);
}
