import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { BrregServer } from '../../../../sample/no/brreg-server.js';
import { planSample } from '../../../../sample/plan.js';
import { sampleCompanies } from '../../../../sample/no/companies.js';
import { BUSINESS_SAMPLE_FILES } from '../../../../sample/no/write-business-json.js';
import { tableDigest } from '../../../support/live-snapshot.js';
import { rejectsOf, withRejectCeiling } from '../published.js';

/**
 * End to end through the worker, against PostGIS and a local server in the shape of
 * data.brreg.no: full loads of enheter and underenheter from their `lastned` URLs, then nightly
 * increments from the updates feed.
 */

const FIXTURES = path.join(__dirname, '../../../fixtures/no/business');
type Rec = Record<string, unknown> & { organisasjonsnummer: string };

let pipeline: TestPipeline;
let brreg: BrregServer;
let realSub: Rec;
let realMain: Rec;

const nordlys: Rec = {
  organisasjonsnummer: '920000002', navn: 'NORDLYS HANDEL AS', organisasjonsform: { kode: 'AS', beskrivelse: 'Aksjeselskap', links: [] },
  registreringsdatoEnhetsregisteret: '2019-03-04', antallAnsatte: 12, stiftelsesdato: '2019-02-20',
  naeringskode1: { beskrivelse: 'Butikkhandel med bredt vareutvalg med hovedvekt på nærings- og nytelsesmidler', kode: '47.111' },
  forretningsadresse: { land: 'Norge', landkode: 'NO', postnummer: '0150', poststed: 'OSLO', adresse: ['Dronningens gt. 8'], kommune: 'OSLO', kommunenummer: '0301' },
  postadresse: { land: 'Norge', landkode: 'NO', postnummer: '0101', poststed: 'OSLO', adresse: ['Postboks 44 Sentrum'], kommune: 'OSLO', kommunenummer: '0301' },
  links: [],
};
// The unit of the real feed item in the reference (oppdateringsid 14757180).
const mockFeedUnit: Rec = {
  organisasjonsnummer: '927818310', navn: 'FJORDLYS REGNSKAP AS', organisasjonsform: { kode: 'AS', beskrivelse: 'Aksjeselskap', links: [] },
  naeringskode1: { beskrivelse: 'Regnskap og bokføring', kode: '69.201' }, antallAnsatte: 3, stiftelsesdato: '2021-06-01',
  forretningsadresse: { land: 'Norge', landkode: 'NO', postnummer: '5004', poststed: 'BERGEN', adresse: ['Strandgaten 208'], kommune: 'BERGEN', kommunenummer: '4601' },
  links: [],
};
const parent: Rec = {
  organisasjonsnummer: '995849364', navn: 'PROSJEKTER HOLDING AS', organisasjonsform: { kode: 'AS', beskrivelse: 'Aksjeselskap', links: [] },
  forretningsadresse: { land: 'Norge', landkode: 'NO', postnummer: '5034', poststed: 'BERGEN', adresse: ['Skanselien 37'], kommune: 'BERGEN', kommunenummer: '4601' },
  links: [],
};

async function companies(): Promise<Record<string, Record<string, unknown>>> {
  const result = await pipeline.pool.query(
    `SELECT org_id, name, is_sub_unit, parent_org_id, legal_form, nace_code, employees, to_char(founded_date, 'YYYY-MM-DD') AS founded,
            to_char(deleted_date, 'YYYY-MM-DD') AS deleted, website
     FROM company WHERE org_scheme = '0192' ORDER BY org_id`,
  );
  return Object.fromEntries(result.rows.map(({ org_id, ...row }) => [org_id, row]));
}

async function addresses(orgId: string): Promise<Record<string, unknown>[]> {
  const result = await pipeline.pool.query(
    `SELECT address_kind, country, address_lines, postal_code, postal_place, municipality_code FROM company_address
     WHERE org_scheme = '0192' AND org_id = $1 ORDER BY address_kind`,
    [orgId],
  );
  return result.rows;
}

async function cursors(): Promise<Record<string, { last: string | null; since: Date | null }>> {
  const result = await pipeline.pool.query(`SELECT feed, last_update_id, changes_since FROM source_feed_cursor WHERE source_id = 'no-business'`);
  return Object.fromEntries(result.rows.map((r) => [r.feed, { last: r.last_update_id, since: r.changes_since }]));
}

const digest = async () => ({ company: await tableDigest(pipeline.pool, 'company'), company_address: await tableDigest(pipeline.pool, 'company_address'), cursor: await tableDigest(pipeline.pool, 'source_feed_cursor') });
const backfill = (input: string) => runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-business', input });

beforeAll(async () => {
  pipeline = await startPipeline();
  brreg = await new BrregServer().start();
  [realSub, realMain] = JSON.parse(await readFile(path.join(FIXTURES, 'real-records.json'), 'utf8')) as Rec[];
  for (const record of [realMain, nordlys, mockFeedUnit, parent]) brreg.put('enheter', record);
  brreg.put('underenheter', realSub);
  // Changed before the full downloads were taken: far enough back that the feed never returns it.
  brreg.change('enheter', nordlys.organisasjonsnummer, 'Endring', '2020-01-01T00:00:00.000Z');
});
afterAll(async () => {
  await brreg?.stop();
  await pipeline?.stop();
});

describe('no-business through the worker', () => {
  it('loads the enheter download from its lastned URL (gzipped JSON, versioned Accept) into company and company_address', async () => {
    const summary = await backfill(`${brreg.base}/enheter/lastned`);
    expect(sourceOf(summary, 'no-business')).toMatchObject({ outcome: 'published', rowsRead: 4, rowsStaged: 4, rowsRejected: 0, inserted: 4, updated: 0, deleted: 0 });
    const live = await companies();
    expect(live['916627939']).toEqual({
      name: '- P A L M E R A -', is_sub_unit: false, parent_org_id: null, legal_form: 'FLI', nace_code: '94.991', employees: 0,
      founded: '2015-11-01', deleted: null, website: 'palmera-i-bergen.no',
    });
    expect(await addresses('916627939')).toEqual([
      { address_kind: 'BUSINESS', country: 'NO', address_lines: ['Strandgaten 208'], postal_code: '5004', postal_place: 'BERGEN', municipality_code: '4601' },
    ]);
    expect((await addresses('920000002')).map((a) => a.address_kind)).toEqual(['BUSINESS', 'POSTAL']);
    const cursor = await cursors();
    expect(Object.keys(cursor)).toEqual(['enheter']);
    expect(cursor.enheter.last).toBeNull();
    // The feed restarts a day before the download, so no change after the snapshot is missed.
    expect(Date.now() - cursor.enheter.since!.getTime()).toBeGreaterThan(23 * 3600 * 1000);
  });

  it('refuses to run the feed before both kinds had a full load, saying what to load', async () => {
    const summary = await backfill(`${brreg.base}/oppdateringer`);
    expect(sourceOf(summary, 'no-business')).toMatchObject({ outcome: 'failed', inserted: 0 });
    expect(sourceOf(summary, 'no-business').error).toMatch(/no full load of underenheter.*nordprop backfill --source no-business --input .*\/underenheter\/lastned/);
  });

  it('loads the underenheter download without touching the enheter', async () => {
    const before = await companies();
    const summary = await backfill(`${brreg.base}/underenheter/lastned`);
    expect(sourceOf(summary, 'no-business')).toMatchObject({ outcome: 'published', rowsStaged: 1, inserted: 1, updated: 0, deleted: 0 });
    const live = await companies();
    expect(live['995858266']).toMatchObject({ name: ':-) PROSJEKTER', is_sub_unit: true, parent_org_id: '995849364', legal_form: 'BEDR', founded: '2010-07-01' });
    for (const orgId of Object.keys(before)) expect(live[orgId]).toEqual(before[orgId]);
  });

  it('does nothing on the same download again, and writes nothing when forced to reload it', async () => {
    const before = await digest();
    const again = await backfill(`${brreg.base}/enheter/lastned`);
    expect(sourceOf(again, 'no-business')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-business', input: `${brreg.base}/enheter/lastned`, force: true });
    expect(sourceOf(forced, 'no-business')).toMatchObject({ outcome: 'published', rowsStaged: 4, inserted: 0, updated: 0, deleted: 0 });
    const after = await digest();
    expect({ ...after, cursor: undefined }).toEqual({ ...before, cursor: undefined });
  });

  it('applies only what the feed says changed: Ny, Endring, Sletting, Fjernet, in one publish, paging by oppdateringsid', async () => {
    const before = await companies();
    // The register changes.
    brreg.put('enheter', { ...mockFeedUnit, navn: 'FJORDLYS REGNSKAP OG RÅDGIVNING AS', antallAnsatte: 5 });
    brreg.change('enheter', '927818310', 'Endring');
    const newcomer: Rec = { ...nordlys, organisasjonsnummer: '920000029', navn: 'NYETABLERT AS', postadresse: undefined };
    brreg.put('enheter', newcomer);
    brreg.change('enheter', '920000029', 'Ny');
    const deletedAt = new Date(Date.now() - 3600_000).toISOString();
    brreg.remove('enheter', '920000002', deletedAt.slice(0, 10));
    brreg.change('enheter', '920000002', 'Sletting', deletedAt);
    brreg.change('enheter', '916627939', 'Omdøpt');
    brreg.put('underenheter', { ...realSub, beliggenhetsadresse: { ...(realSub.beliggenhetsadresse as object), adresse: ['Skanselien 39'] } });
    brreg.change('underenheter', '995858266', 'Endring');
    brreg.remove('enheter', '995849364', deletedAt.slice(0, 10), true);
    brreg.change('enheter', '995849364', 'Endring');
    brreg.change('enheter', '995849364', 'Fjernet');
    brreg.requests.length = 0;

    const summary = await withRejectCeiling('0.5', () => backfill(`${brreg.base}/oppdateringer`));
    const run = sourceOf(summary, 'no-business');
    expect(run).toMatchObject({ outcome: 'published', rowsRead: 7, rowsStaged: 6, rowsRejected: 1 });
    expect(await rejectsOf(pipeline.pool, summary.runId, 'no-business')).toEqual({
      4: 'unknown endringstype "Omdøpt" (expected Ny, Endring, Sletting, Fjernet or Ukjent)',
    });
    const live = await companies();
    expect(live['927818310']).toMatchObject({ name: 'FJORDLYS REGNSKAP OG RÅDGIVNING AS', employees: 5, deleted: null });
    expect(live['920000029']).toMatchObject({ name: 'NYETABLERT AS', legal_form: 'AS', deleted: null });
    expect(live['920000002']).toMatchObject({ name: 'NORDLYS HANDEL AS', deleted: deletedAt.slice(0, 10) });
    expect(live['995849364']).toBeUndefined();
    expect(await addresses('995849364')).toEqual([]);
    expect(live['916627939']).toEqual(before['916627939']);
    expect((await addresses('995858266'))[0]).toMatchObject({ address_kind: 'BUSINESS', address_lines: ['Skanselien 39'] });
    expect(run).toMatchObject({ inserted: 1, updated: 2, deleted: 2 });

    // The first page was asked for by time (after the full load), the next ones by id.
    const feedRequests = brreg.requests.filter((r) => r.includes('/oppdateringer/'));
    expect(feedRequests[0]).toMatch(/\/oppdateringer\/enheter\?dato=\d{4}-\d\d-\d\dT[\d:.]+Z&size=\d+/);
    expect(feedRequests.slice(1).every((r) => /oppdateringsid=\d+/.test(r) || /underenheter\?dato=/.test(r))).toBe(true);
    expect(feedRequests.length).toBeGreaterThan(3);
    const cursor = await cursors();
    expect(Number(cursor.enheter.last)).toBe(brreg.feeds.enheter.at(-1)!.oppdateringsid);
    expect(Number(cursor.underenheter.last)).toBe(brreg.feeds.underenheter.at(-1)!.oppdateringsid);
  });

  it('is unchanged when the feed has nothing new, asking only after the last applied id', async () => {
    const before = await digest();
    brreg.requests.length = 0;
    const summary = await backfill(`${brreg.base}/oppdateringer`);
    expect(sourceOf(summary, 'no-business')).toMatchObject({ outcome: 'unchanged', rowsRead: 0, inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toEqual(before);
    expect(brreg.requests).toEqual([
      `/enhetsregisteret/api/oppdateringer/enheter?oppdateringsid=${brreg.feeds.enheter.at(-1)!.oppdateringsid + 1}&size=2000`,
      `/enhetsregisteret/api/oppdateringer/underenheter?oppdateringsid=${brreg.feeds.underenheter.at(-1)!.oppdateringsid + 1}&size=2000`,
    ]);
  });

  it('fetches the next change alone the night after', async () => {
    const applied = brreg.feeds.enheter.at(-1)!.oppdateringsid;
    brreg.put('enheter', { ...realMain, antallAnsatte: 2 });
    brreg.change('enheter', '916627939', 'Endring');
    brreg.requests.length = 0;
    const summary = await backfill(`${brreg.base}/oppdateringer`);
    expect(sourceOf(summary, 'no-business')).toMatchObject({ outcome: 'published', rowsRead: 1, inserted: 0, updated: 1, deleted: 0 });
    expect(brreg.requests[0]).toBe(`/enhetsregisteret/api/oppdateringer/enheter?oppdateringsid=${applied + 1}&size=2000`);
    expect((await companies())['916627939']).toMatchObject({ employees: 2 });
  });

  it('fails a feed page in the wrong shape without touching live data', async () => {
    const before = await digest();
    brreg.change('enheter', '916627939', 'Endring');
    const summary = await backfill(brreg.base.replace('/enhetsregisteret/api', '/wrong-shape/oppdateringer'));
    expect(sourceOf(summary, 'no-business')).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/did not answer an Enhetsregisteret HAL page/) });
    expect(await digest()).toEqual(before);
  });
});

describe('no-business over the sample bundle', () => {
  it('loads enheter and underenheter from enhetsregisteret.tar in one run; units it no longer lists stay, marked deleted', async () => {
    const liveBefore = Number((await pipeline.pool.query(`SELECT count(*) AS n FROM company WHERE deleted_date IS NULL`)).rows[0].n);
    const plan = planSample(300, 'business');
    const file = path.join(pipeline.dataDir, BUSINESS_SAMPLE_FILES[0].fileName);
    await BUSINESS_SAMPLE_FILES[0].write({ path: file, plan, seed: 'business', parcels: 300 });
    const truth = [...sampleCompanies(plan)];
    const summary = await backfill(file);
    expect(sourceOf(summary, 'no-business')).toMatchObject({ outcome: 'published', rowsStaged: truth.length, rowsRejected: 0, inserted: truth.length, deleted: liveBefore });
    const kinds = await pipeline.pool.query(`SELECT is_sub_unit, count(*)::int AS n FROM company WHERE deleted_date IS NULL GROUP BY 1 ORDER BY 1`);
    expect(kinds.rows).toEqual([
      { is_sub_unit: false, n: truth.filter((c) => c.kind === 'enhet').length },
      { is_sub_unit: true, n: truth.filter((c) => c.kind === 'underenhet').length },
    ]);
    // Each company's business (or location) address is the one its record gives (the sample's
    // spelling noise included: a few records name a neighbouring postal code, as real ones do).
    const located = await pipeline.pool.query(`SELECT org_id, postal_code, municipality_code FROM company_address WHERE address_kind = 'BUSINESS'`);
    const byOrg = new Map(located.rows.map((row) => [row.org_id, row]));
    for (const company of truth) {
      const written = company.record.forretningsadresse ?? company.record.beliggenhetsadresse;
      expect(byOrg.get(company.record.organisasjonsnummer)).toMatchObject({ postal_code: written?.postnummer, municipality_code: written?.kommunenummer });
    }
  });
});
