import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { PROJECT_ROOT } from '../../../lib/config.js';
import type { RunSummary } from '../../../activities/types.js';
import { REAL_ADDRESS_ZIP } from '../../support/real-data.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../support/runs.js';
import { clientWithToken, startApiServer, type ApiServer } from '../support/api-server.js';

/**
 * The ops console (/ops) in a real browser: Debian's Chromium, headless, driven by
 * puppeteer-core, over ledger rows of real runs on the dev server (a published backfill, one
 * that trips the reject-rate guard with 56 rejected rows, a backfill of a truncated zip, a refresh
 * whose source has no file, and one held mid-download to watch it in progress). It asserts what
 * an operator sees, and takes the screenshots of docs/ops/ (written there with
 * NORDPROP_WRITE_SCREENSHOTS=1; to a temporary folder otherwise, so a test run changes no file).
 */

/** Debian's Chromium (scripts/test.sh installs it), found on PATH; NORDPROP_CHROMIUM names another. */
function chromium(): string {
  if (process.env.NORDPROP_CHROMIUM) return process.env.NORDPROP_CHROMIUM;
  const found = (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'chromium')).find((file) => existsSync(file));
  if (!found) throw new Error('chromium is not installed: scripts/test.sh installs it (apt-get install chromium)');
  return found;
}
const OPS_SECRET = randomBytes(18).toString('base64url');

let pipeline: TestPipeline;
let api: ApiServer;
let browser: Browser;
let page: Page;
let screenshotDir: string;
let heldDownload: { server: http.Server; url: string; sent: number; total: number; release(): void };
const runs: Record<string, RunSummary> = {};

/** Serves the real address zip: the first half at once, the rest when released (a run held mid-download). */
async function holdingServer(file: string): Promise<typeof heldDownload> {
  const bytes = await readFile(file);
  const sent = Math.floor(bytes.length / 2);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/zip', 'content-length': String(bytes.length) });
    response.write(bytes.subarray(0, sent));
    released.then(() => response.end(bytes.subarray(sent)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${path.basename(file)}`;
  return { server, url, sent, total: bytes.length, release };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

const opsUrl = (pathAndQuery: string) => `${api.baseUrl}${pathAndQuery}`;
/** What a person reads in an element: its rendered text (innerText), not hidden markup. */
type Rendered = { innerText?: string; textContent: string | null };
// SVG elements have no innerText: their text content is what is drawn.
const text = (selector: string) => page.$eval(selector, (element) => ((element as unknown as Rendered).innerText ?? element.textContent ?? '').trim());
const texts = (selector: string) => page.$$eval(selector, (elements) => elements.map((element) => ((element as unknown as Rendered).innerText ?? element.textContent ?? '').trim()));

async function screenshot(name: string, width = 1280): Promise<void> {
  await page.setViewport({ width, height: 760 });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`) as `${string}.png` });
  await page.setViewport({ width: 1280, height: 760 });
}

beforeAll(async () => {
  screenshotDir = process.env.NORDPROP_WRITE_SCREENSHOTS ? path.join(PROJECT_ROOT, 'docs/ops') : await mkdtemp(path.join(os.tmpdir(), 'nordprop-ops-'));
  await mkdir(screenshotDir, { recursive: true });
  pipeline = await startPipeline();
  process.env.NORDPROP_OPS_TOKEN = OPS_SECRET;
  api = await startApiServer(pipeline.pool);
  browser = await puppeteer.launch({ executablePath: chromium(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 760 });
  await page.authenticate({ username: 'operator', password: OPS_SECRET });

  runs.published = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: REAL_ADDRESS_ZIP });
  if (runs.published.outcome !== 'succeeded') throw new Error(`the first backfill ${runs.published.outcome}`);
});

afterAll(async () => {
  delete process.env.NORDPROP_OPS_TOKEN;
  heldDownload?.release();
  await browser?.close();
  await api?.close();
  await new Promise((resolve) => (heldDownload ? heldDownload.server.close(resolve) : resolve(undefined)));
  await pipeline?.stop();
  if (!process.env.NORDPROP_WRITE_SCREENSHOTS && screenshotDir) await rm(screenshotDir, { recursive: true, force: true });
});

describe('the operator credential', () => {
  it('is required: no credential, a wrong one and an API client\'s bearer token get 401; the operator secret opens the console', async () => {
    const client = await clientWithToken(pipeline.pool, api.baseUrl, { scopes: ['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write'] });
    const basic = (password: string) => `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`;
    for (const authorization of [undefined, `Bearer ${client.token}`, basic('wrong'), basic(client.token), `Bearer ${OPS_SECRET}x`]) {
      const response = await fetch(opsUrl('/ops'), { headers: authorization ? { authorization } : {} });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="nordprop ops"/);
      expect(await response.text()).not.toContain('no-address');
    }
    for (const authorization of [basic(OPS_SECRET), `Bearer ${OPS_SECRET}`]) {
      const response = await fetch(opsUrl('/ops'), { headers: { authorization } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'/);
    }
  });

  it('is not part of the API description, and without NORDPROP_OPS_TOKEN /ops answers 404', async () => {
    const description = await (await fetch(opsUrl('/openapi.yaml'))).text();
    expect(description).toMatch(/^openapi: 3\.1\.0/);
    expect(description).not.toContain('/ops');
    delete process.env.NORDPROP_OPS_TOKEN;
    const without = await startApiServer(pipeline.pool);
    try {
      const response = await fetch(`${without.baseUrl}/ops`, { headers: { authorization: `Bearer ${OPS_SECRET}` } });
      expect(response.status).toBe(404);
    } finally {
      await without.close();
      process.env.NORDPROP_OPS_TOKEN = OPS_SECRET;
    }
  });
});

describe('in the browser', () => {
  it('the running page shows a run held mid-download, its bytes from the heartbeat, and reloads itself until it ends', async () => {
    heldDownload = await holdingServer(REAL_ADDRESS_ZIP);
    const runId = `t${Date.now()}-held`;
    const handle = await pipeline.client.workflow.start('backfill', {
      taskQueue: pipeline.taskQueue,
      workflowId: `backfill-${runId}`,
      args: [{ runId, sourceId: 'no-address', input: heldDownload.url }],
    });
    await page.goto(opsUrl('/ops/running'));
    // Never reloaded by the test: the page's own refresh brings the heartbeat in.
    const half = (heldDownload.sent / 1024).toFixed(1);
    const whole = (heldDownload.total / 1024).toFixed(1);
    const bytes = await until('the heartbeat on the running page', async () => {
      const shown = await text(`section[data-run="${runId}"] tr[data-source="no-address"] .bytes`);
      return shown.includes(`${half} KB of ${whole} KB`) ? shown : undefined;
    });
    expect(bytes).toBe(`${half} KB of ${whole} KB`);
    expect(await text(`section[data-run="${runId}"] tr[data-source="no-address"]`)).toMatch(/^no-address\s+running\s+download\s+.*0 rows, 0 rejected/);
    expect(await page.$eval('meta[http-equiv="refresh"]', (meta) => meta.getAttribute('content'))).toBe('3');
    await screenshot('running');

    heldDownload.release();
    runs.held = await handle.result();
    await until('the page to say nothing runs', async () => ((await page.$('#none-running')) ? true : undefined));
    expect(await text('#none-running')).toBe('No run is in progress.');
  });

  it('the run page of a published run shows its phases in order, the timeline and the changes per table', async () => {
    await page.goto(opsUrl(`/ops/runs/${runs.published.runId}`));
    expect(await text('h1')).toBe(`Run ${runs.published.runId} ✓ succeeded`);
    expect(await text('#source-no-address .phases')).toMatch(/^phases: download [\d.]+ m?s → stage [\d.]+ m?s → validate [\d.]+ m?s → publish [\d.]+ m?s$/);
    expect(await texts('svg[aria-label="phase timeline"] > text')).toEqual(expect.arrayContaining(['no-address']));
    expect(await texts('#source-no-address table.tables tbody tr')).toEqual(['address\t47\t0\t0']);
    const temporalLinks = await page.$$eval('#sources a', (links) => links.map((a) => a.getAttribute('href')));
    expect(temporalLinks).toContain(`http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(`ingest-no-address-${runs.published.runId}`)}`);
  });

  it('the rejects of a run that tripped the reject-rate guard: paged, narrowed by reason and by source, with their raw text', async () => {
    const good = (await readFile(path.join(PROJECT_ROOT, 'test/fixtures/no/address/oslo-2-rows.csv'), 'utf8')).trimEnd().split('\n');
    const broken = Array.from({ length: 55 }, (_, i) => `3000001${String(i).padStart(2, '0')};0301;OSLO;broken`);
    const csv = path.join(pipeline.dataDir, 'oslo-with-broken-rows.csv');
    await writeFile(csv, [...good, good[1], ...broken, ''].join('\n'));
    runs.guard = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: csv });
    expect(runs.guard.outcome).toBe('failed');

    await page.goto(opsUrl(`/ops/runs/${runs.guard.runId}`));
    expect(await text('#source-no-address .error')).toMatch(/^56 of 58 rows rejected \(96\.55%\), above the 1\.00% ceiling/);
    expect(await text('#rejects-count')).toBe('rows 1–50 of 56');
    expect(await page.$$eval('#reject-rows tbody tr', (rows) => rows.length)).toBe(50);
    await Promise.all([page.waitForNavigation(), page.click('a[rel="next"]')]);
    expect(await text('#rejects-count')).toBe('rows 51–56 of 56');
    await screenshot('run-rejects');

    await page.goto(opsUrl(`/ops/runs/${runs.guard.runId}`));
    await page.type('input[name="reason"]', 'DUPLICATE');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button')]);
    expect(await text('#rejects-count')).toBe('rows 1–1 of 1 (filtered)');
    const [row] = await page.$$eval('#reject-rows tbody tr', (rows) => rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td as unknown as Rendered).innerText!.trim())));
    expect(row.slice(0, 3)).toEqual(['no-address', '4', 'rejected']);
    expect(row[3]).toMatch(/^duplicate key .* \(first at position 2\)$/);
    // A duplicate is found among the staged rows: its raw text is the staged row, with the key it repeats.
    expect(row[4]).toMatch(/^\(4,300000001,0301-208-327-0-0,.*"Karl Johans gate 22B"/);

    await page.goto(opsUrl(`/ops/runs/${runs.guard.runId}`));
    expect(await page.$$eval('select[name="source"] option', (options) => options.map((o) => o.textContent))).toEqual(['every source', 'no-address (56)']);
    await page.select('select[name="source"]', 'no-address');
    await page.type('input[name="reason"]', 'columns');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button')]);
    expect(await text('#rejects-count')).toBe('rows 1–50 of 55 (filtered)');
    expect(new Set(await texts('#reject-rows td.reason'))).toEqual(new Set(['row has 4 columns, the header has 46']));
    await page.goto(opsUrl(`/ops/runs/${runs.guard.runId}?page=9`));
    expect(await text('#rejects-count')).toBe('no row on page 9: 56 match');
    expect(await page.$eval('a[rel="prev"]', (a) => a.getAttribute('href'))).toBe(`/ops/runs/${runs.guard.runId}?page=2#rejects`);
    await page.goto(opsUrl(`/ops/runs/${runs.guard.runId}?source=no-permits`));
    expect(await text('#rejects-count')).toBe('no row matches (filtered)');
  });

  it('the grid of nights shows each source\'s latest run of the night with its outcome in words, and a failed cell opens the run and its error', async () => {
    const truncated = path.join(pipeline.dataDir, 'Adresse-truncated.zip');
    const zip = await readFile(REAL_ADDRESS_ZIP);
    await writeFile(truncated, zip.subarray(0, Math.floor(zip.length * 0.6)));
    runs.badFile = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: truncated });
    expect(runs.badFile.outcome).toBe('failed');
    const error = sourceOf(runs.badFile, 'no-address').error!;
    // A permits file whose only line is not JSON: no-permits fails too, on another row of the grid.
    const notJson = path.join(pipeline.dataDir, 'permits-not-json.jsonl');
    await writeFile(notJson, 'this is not JSON\n');
    runs.permits = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-permits', input: notJson });
    expect(runs.permits.outcome).toBe('failed');

    await page.goto(opsUrl('/ops'));
    expect(await text('h1')).toBe('The last 30 nights');
    expect(await texts('.legend > span')).toEqual([
      'pubpublished: live data changed to the new snapshot',
      'sameunchanged: same input as live, nothing written',
      'FAILfailed: live data untouched; open the run for the error',
      'runrunning now, or ended without closing its entry',
      '·no run that night',
    ]);
    const nights = await page.$$eval('#nights thead th.night', (cells) => cells.map((th) => th.textContent));
    expect(nights).toHaveLength(30);
    const tonight = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Oslo' }).format(new Date());
    expect(nights[29]).toBe(tonight.slice(5));
    // Every source of the registry and every derived dataset has a row.
    const rows = await page.$$eval('#nights tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-source')));
    expect(rows).toEqual(expect.arrayContaining(['no-address', 'no-permits', 'se-cadastre', 'derive-no-tenants', 'derive-se-valuations']));
    const cell = (source: string) => `#nights tr[data-source="${source}"] td[data-night="${tonight}"]`;
    expect(await text(cell('no-address'))).toBe('FAIL');
    expect(await page.$eval(`${cell('no-address')} a`, (a) => a.getAttribute('title'))).toBe(
      `no-address ${tonight}: failed in backfill run ${runs.badFile.runId} (latest of 4 runs that night) — ${error.slice(0, 200)}`,
    );
    expect(await text(cell('no-permits'))).toBe('FAIL');
    expect(await page.$$eval(`#nights tr[data-source="se-cadastre"] td`, (tds) => tds.map((td) => td.textContent))).toEqual(Array(30).fill('·'));
    expect(await texts('#runs tbody tr td:first-child')).toEqual([runs.permits, runs.badFile, runs.guard, runs.held, runs.published].map((r) => r.runId));
    // Wide enough for all 30 nights.
    await screenshot('nights', 1360);

    await Promise.all([page.waitForNavigation(), page.click(`${cell('no-address')} a`)]);
    expect(page.url()).toBe(opsUrl(`/ops/runs/${runs.badFile.runId}?source=no-address`));
    expect(await text('h1')).toBe(`Run ${runs.badFile.runId} ✗ failed`);
    expect(await text('#source-no-address .error')).toBe(error);
    expect(error).toMatch(/zip/i);
    expect(await page.$eval('a[href*="NordpropRunId"]', (a) => a.getAttribute('href'))).toBe(
      `http://127.0.0.1:8233/namespaces/default/workflows?query=${encodeURIComponent(`NordpropRunId="${runs.badFile.runId}"`)}`,
    );
    await screenshot('run-failed');
  });

  it("a source's page plots its rows and phase durations over its runs, lists them, and links to its workflows", async () => {
    await page.goto(opsUrl('/ops/sources/no-address'));
    expect(await texts('figure.chart svg > title')).toEqual(['Rows read', 'Rows inserted, updated, deleted', 'Rows rejected', 'Duration per phase']);
    // One point per run, oldest first: the rows read by each (the same zip again is unchanged, read no further; the truncated zip read none).
    const read = await page.$$eval('figure.chart:first-child circle title', (titles) => titles.map((t) => t.textContent!.replace(/^.*: read /, '')));
    expect(read).toEqual(['47', '0', '58', '0']);
    expect(await page.$$eval('figure.chart:nth-child(4) g.series', (groups) => groups.map((g) => g.getAttribute('data-series')))).toEqual(['download', 'stage', 'validate', 'publish']);
    expect(await texts('#history tbody tr td:first-child')).toEqual([runs.badFile, runs.guard, runs.held, runs.published].map((r) => r.runId));
    expect(await page.$eval('a[href*="NordpropSource"]', (a) => a.getAttribute('href'))).toBe(
      `http://127.0.0.1:8233/namespaces/default/workflows?query=${encodeURIComponent('NordpropSource="no-address"')}`,
    );
    await screenshot('source');
    const unknown = await page.goto(opsUrl('/ops/sources/no-such-source'));
    expect(unknown?.status()).toBe(404);
  });

  it('escapes what the ledger holds: a reject whose raw text is markup shows as text', async () => {
    await pipeline.pool.query(
      `INSERT INTO source_reject (run_id, source_id, position, reason, raw) VALUES ($1, 'no-address', 99, 'reason <b>bold</b>', '<script>alert(1)</script>')`,
      [runs.guard.runId],
    );
    await page.goto(opsUrl(`/ops/runs/${runs.guard.runId}?reason=bold`));
    expect(await texts('#reject-rows td.reason')).toEqual(['reason <b>bold</b>']);
    expect(await texts('#reject-rows pre.raw')).toEqual(['<script>alert(1)</script>']);
    expect(await page.$$('#reject-rows script, #reject-rows b')).toHaveLength(0);
  });
});
