import { expect, it } from 'vitest';
import { describeError } from '../../lib/describe-error.js';

it('names the innermost cause, without the wrappers around it', () => {
  const root = new Error('input file /x.zip does not exist');
  const activity = new Error('Activity task failed', { cause: root });
  expect(describeError(new Error('Child Workflow execution failed', { cause: activity }))).toBe('input file /x.zip does not exist');
});

it("drops the empty resolution note a gRPC error ends with", () => {
  const grpc = new Error('14 UNAVAILABLE: No connection established. Resolution note: ');
  expect(describeError(new Error('Failed to query workflow', { cause: grpc }))).toBe('14 UNAVAILABLE: No connection established.');
});

it('describes a thrown value that is not an Error', () => {
  expect(describeError('gone')).toBe('gone');
});
