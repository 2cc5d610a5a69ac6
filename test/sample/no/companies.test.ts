import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { neighbouringPostalCode, sampleCompanies, sampleCompaniesOfParcel, type BrregRecord } from '../../../sample/no/companies.js';
import { BUSINESS_SAMPLE_FILES, ENHETER_FILE, UNDERENHETER_FILE, writeBusinessJson } from '../../../sample/no/write-business-json.js';
import { orgNumberProblem } from '../../../sources/no/org-number.js';
import { noBusiness } from '../../../sources/no/business/adapter.js';
import { createReadStream } from 'node:fs';

const plan = planSample(400, '7');
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('sample companies', () => {
  const companies = [...sampleCompanies(plan)];
  const addresses = new Map([...parcelsOfPlan(plan)].flatMap((parcel) => parcel.addresses.map((a) => [a.adresseId, a] as const)));

  it('sit at real sample addresses, with valid and unique org numbers', () => {
    expect(companies.length).toBeGreaterThan(200);
    const numbers = new Set(companies.map((c) => c.record.organisasjonsnummer));
    expect(numbers.size).toBe(companies.length);
    for (const { record, truth, kind } of companies) {
      expect(orgNumberProblem(record.organisasjonsnummer)).toBeNull();
      const address = addresses.get(truth.adresseId)!;
      expect(address.adresseTekst).toBe(truth.adresseTekst);
      const located = kind === 'enhet' ? record.forretningsadresse! : record.beliggenhetsadresse!;
      // A few registrants write the neighbouring postal code (noise the tenants matching must survive).
      expect([address.postnummer, neighbouringPostalCode(address.postnummer)]).toContain(located.postnummer);
      expect(located.kommunenummer).toBe(address.kommunenummer);
      if (kind === 'underenhet') expect(numbers.has(record.overordnetEnhet!)).toBe(true);
    }
  });

  it('spell some addresses the way registrants do, and keep the rest clean', () => {
    const lines = companies.map((c) => ({ written: (c.record.forretningsadresse ?? c.record.beliggenhetsadresse)!.adresse, truth: c.truth.adresseTekst }));
    const exact = lines.filter((l) => l.written.length === 1 && l.written[0] === l.truth).length;
    expect(exact / lines.length).toBeGreaterThan(0.4);
    expect(lines.some((l) => l.written[0].startsWith('c/o '))).toBe(true);
    expect(lines.some((l) => /gt\.|vn\./.test(l.written.at(-1)!))).toBe(true);
    expect(lines.some((l) => l.written.at(-1) === l.truth.toLocaleUpperCase('nb-NO') && l.truth !== l.written.at(-1))).toBe(true);
  });

  it('are a pure function of the seed and the parcel', () => {
    const parcel = [...parcelsOfPlan(plan)][companies[40].truth.parcelIndex];
    expect(sampleCompaniesOfParcel('7', parcel).length).toBeGreaterThan(0);
    expect(sampleCompaniesOfParcel('7', parcel)).toEqual(sampleCompaniesOfParcel('7', parcel));
    expect(JSON.stringify(sampleCompaniesOfParcel('8', parcel))).not.toBe(JSON.stringify(sampleCompaniesOfParcel('7', parcel)));
  });

  it('write gzipped JSON arrays, byte-identical for the same seed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nordprop-business-'));
    dirs.push(dir);
    const written = await writeBusinessJson({ path: join(dir, ENHETER_FILE), plan, seed: '7', parcels: 400 }, 'enhet');
    await writeBusinessJson({ path: join(dir, 'again.json.gz'), plan, seed: '7', parcels: 400 }, 'enhet');
    const subs = await writeBusinessJson({ path: join(dir, UNDERENHETER_FILE), plan, seed: '7', parcels: 400 }, 'underenhet');
    const bytes = await readFile(join(dir, ENHETER_FILE));
    expect(bytes.equals(await readFile(join(dir, 'again.json.gz')))).toBe(true);
    const records = JSON.parse(gunzipSync(bytes).toString('utf8')) as BrregRecord[];
    expect(records).toHaveLength(written.rows);
    expect(written.rows + subs.rows).toBe(companies.length);
    expect(records.every((r) => r.forretningsadresse && !r.beliggenhetsadresse)).toBe(true);
  });

  it('bundle both downloads in one tar the adapter reads whole, every record staged and none rejected', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nordprop-business-'));
    dirs.push(dir);
    const [bundle] = BUSINESS_SAMPLE_FILES;
    expect(bundle.fileName).toBe(noBusiness.inputFileName);
    const path = join(dir, bundle.fileName);
    const written = await bundle.write({ path, plan, seed: '7', parcels: 400 });
    expect(written.rows).toBe(companies.length);
    const again = join(dir, 'again.tar');
    await bundle.write({ path: again, plan, seed: '7', parcels: 400 });
    expect((await readFile(path)).equals(await readFile(again))).toBe(true);
    let staged = 0;
    const subUnits = new Set<string>();
    for await (const batch of noBusiness.parse(createReadStream(path), { fileName: bundle.fileName })) {
      expect(batch.filter((r) => r.kind === 'reject')).toEqual([]);
      for (const record of batch) if (record.kind === 'row' && record.values[3] === true) subUnits.add(record.values[0] as string);
      staged += batch.length;
    }
    expect(staged).toBe(companies.length);
    expect([...subUnits].sort()).toEqual(companies.filter((c) => c.kind === 'underenhet').map((c) => c.record.organisasjonsnummer).sort());
  });
});
