import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi } from './support/openapi-check.js';

/** What /openapi.yaml says of bodiless answers and of the headers a client reads. */
let api: ApiTest;
interface Operation {
  name: string;
  parameters?: { in: string; name: string }[];
  responses: Record<string, { content?: object; headers?: Record<string, unknown> }>;
}
let operations: Operation[];
beforeAll(async () => {
  api = await startApiTest();
  const { document } = await fetchOpenApi(api.baseUrl);
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ ...(operation as unknown as Operation), name: `${method.toUpperCase()} ${path}` })),
  );
});
afterAll(async () => {
  await api?.stop();
});

const answers = (status: (code: number) => boolean) =>
  operations.flatMap((operation) => Object.entries(operation.responses).filter(([code]) => status(Number(code))).map(([code, response]) => ({ where: `${operation.name} ${code}`, response })));

describe('/openapi.yaml response headers and bodies', () => {
  it('describes 204 and redirects without a body', () => {
    const bodiless = answers((code) => code === 204 || (code >= 300 && code < 400));
    expect(bodiless.map((a) => a.where).sort()).toEqual(['DELETE /subscriptions/{subscriptionId} 204', 'GET /zoning-plan-documents/{country}/{municipalityCode}/{planId}/{documentId} 302']);
    expect(bodiless.filter((a) => a.response.content !== undefined).map((a) => a.where)).toEqual([]);
  });

  it('gives every redirect and every 201 a Location', () => {
    const located = answers((code) => code === 201 || (code >= 300 && code < 400));
    expect(located.length).toBeGreaterThan(0);
    expect(located.filter((a) => !a.response.headers?.Location).map((a) => a.where)).toEqual([]);
  });

  it('lists the RateLimit headers on every answer, bodiless ones included', () => {
    const all = answers(() => true);
    const missing = all.filter((a) => !['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].every((name) => a.response.headers?.[name]));
    expect(missing.map((a) => a.where)).toEqual([]);
  });

  it('lists Idempotent-Replayed on the success of each operation that takes an Idempotency-Key', () => {
    const keyed = operations.filter((operation) => operation.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'));
    expect(keyed.map((operation) => operation.name).sort()).toEqual(['POST /properties/{country}/lookups', 'POST /subscriptions']);
    const successes = keyed.flatMap((operation) => Object.entries(operation.responses).filter(([code]) => code.startsWith('2')).map(([code, response]) => ({ where: `${operation.name} ${code}`, response })));
    expect(successes.filter((a) => !a.response.headers?.['Idempotent-Replayed']).map((a) => a.where)).toEqual([]);
  });
});
