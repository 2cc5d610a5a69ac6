/**
 * A sample night's business register served as Brønnøysund's updates feed (the benchmark's
 * no-business night): a feed run after night 0's download publishes what night 1's download
 * does, so the feed lists every change between the two and nothing else.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample, type SampleResult } from '../../../sample/generate.js';
import { BrregServer } from '../../../sample/no/brreg-server.js';
import { feedBetween } from '../../../sample/no/business-feed.js';
import { getSource } from '../../../sources/registry.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../support/runs.js';
import { tableDigest } from '../../support/live-snapshot.js';
import { tempDir } from '../helpers.js';

let pipeline: TestPipeline;
const nights: SampleResult[] = [];
const download = (sample: SampleResult) => path.join(sample.outDir, getSource('no-business').inputFileName);
/** What a company is, without the run and update that wrote it. */
const COMPANY = `org_scheme, org_id, name, parent_org_id, is_sub_unit, legal_form, nace_code, nace_name, employees, founded_date, registered_date, website, deleted_date`;

beforeAll(async () => {
  pipeline = await startPipeline();
  for (const night of [0, 1]) nights.push(await generateSample({ outDir: await tempDir(`business-feed-${night}`), profile: 'national', scale: 0.002, seed: 'business-feed', night }));
}, 240_000);
afterAll(async () => {
  await pipeline?.stop();
});

describe('the sample business register as an updates feed', () => {
  it('lists the changes between two nights, so a feed run after the first download publishes the second', async () => {
    const sourceId = 'no-business';
    // Night 1's download over night 0's: the companies as they should end.
    expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: download(nights[0]) }), sourceId).outcome).toBe('published');
    expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: download(nights[1]) }), sourceId).outcome).toBe('published');
    const published = async () => [await tableDigest(pipeline.pool, 'company', undefined, COMPANY), await tableDigest(pipeline.pool, 'company_address')];
    const expected = await published();

    // Back to night 0, then the feed.
    expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: download(nights[0]), force: true }), sourceId).outcome).toBe('published');
    expect(await published()).not.toEqual(expected);
    const server = await new BrregServer().start();
    try {
      server.pageCap = 50; // pages through
      const counts = await feedBetween(server, download(nights[0]), download(nights[1]));
      expect(counts.changed).toBeGreaterThan(0);
      expect(counts.new + counts.deleted).toBeGreaterThan(0);
      const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: `${server.base}/oppdateringer` }), sourceId);
      expect(night).toMatchObject({ outcome: 'published', rowsStaged: counts.new + counts.changed + counts.deleted });
    } finally {
      await server.stop();
    }
    expect(await published()).toEqual(expected);
  });
});
