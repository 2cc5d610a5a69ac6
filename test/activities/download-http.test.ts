import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runBackfill, sourceOf } from '../support/runs.js';

/** A register server on loopback that honours conditional GETs. */
let server: http.Server;
let baseUrl: string;
let body: Buffer;
const requests: { path: string; ifNoneMatch?: string }[] = [];
let pipeline: TestPipeline;

beforeAll(async () => {
  body = await readFile(REAL_ADDRESS_ZIP);
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
  server = http.createServer((req, res) => {
    requests.push({ path: req.url ?? '', ifNoneMatch: req.headers['if-none-match'] });
    if (req.url?.startsWith('/missing')) return void res.writeHead(404).end();
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
    res.writeHead(200, { 'content-length': String(body.length), etag, 'last-modified': 'Mon, 04 Jan 2021 05:32:37 GMT' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
  server?.close();
});

describe('downloading a register over HTTP', () => {
  it('downloads, publishes, then asks with If-None-Match and skips the unchanged file', async () => {
    const url = `${baseUrl}/Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip`;
    const first = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: url });
    expect(sourceOf(first, 'no-address')).toMatchObject({ outcome: 'published', rowsStaged: 47 });
    const ledger = await pipeline.pool.query(`SELECT input_sha256, input_bytes, etag, last_modified FROM source_run WHERE run_id = $1`, [first.runId]);
    expect(ledger.rows[0]).toEqual({
      input_sha256: createHash('sha256').update(body).digest('hex'),
      input_bytes: body.length,
      etag: expect.stringMatching(/^"[0-9a-f]{16}"$/),
      last_modified: 'Mon, 04 Jan 2021 05:32:37 GMT',
    });

    const second = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: url });
    expect(sourceOf(second, 'no-address')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    expect(requests.at(-1)).toEqual({ path: '/Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip', ifNoneMatch: ledger.rows[0].etag });
  });

  it('fails on a 404 without retrying, with the status in the error', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: `${baseUrl}/missing.zip` });
    expect(sourceOf(summary, 'no-address').error).toBe(`${baseUrl}/missing.zip answered 404`);
    expect(requests.filter((r) => r.path === '/missing.zip')).toHaveLength(1);
  });
});
