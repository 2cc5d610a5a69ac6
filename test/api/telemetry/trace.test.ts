import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { traceIdOf } from '../../../api/telemetry/trace.js';

const request = (headers: Record<string, string> = {}) => ({ headers }) as unknown as IncomingMessage;

describe('traceIdOf', () => {
  it('gives every request without a traceparent its own random 32-hex id, across refills of the pool', () => {
    const ids = Array.from({ length: 1000 }, () => traceIdOf(request()));
    expect(ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // Not a counter or a pool read twice: ids 256 apart (one pool) share no half.
    expect(ids.filter((id, i) => i >= 256 && id.slice(0, 16) === ids[i - 256].slice(0, 16))).toEqual([]);
  });

  it('takes the trace id of a valid traceparent', () => {
    expect(traceIdOf(request({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }))).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });
});
