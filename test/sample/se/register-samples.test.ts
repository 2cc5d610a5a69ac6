import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { planSample } from '../../../sample/plan.js';
import { SAMPLE_REGISTER_FILES } from '../../../sample/register-files.js';
import { SE_GEODATA_SAMPLE_FILES } from '../../../sample/se/write-geopackages.js';
import { organisationsnummer, sampleSwedishCompaniesOf } from '../../../sample/se/companies.js';
import { sampleDeclarationOf } from '../../../sample/se/energy-declarations.js';
import { sampleSalesOf } from '../../../sample/se/property-sales.js';
import { sampleSwedishProperties } from '../../../sample/se/properties.js';
import { getSource } from '../../../sources/registry.js';
import { parseAll, rowObject } from '../../sources/se/parse-all.js';
import { tempDir } from '../helpers.js';

const SEED = 'se-registers';
const PARCELS = 600;
let dir: string;
const written = new Map<string, string>();
/** The Swedish registers beyond Lantmäteriet's three GeoPackages (tested in write-geopackages.test.ts). */
const SE_REGISTER_SAMPLE_FILES = SAMPLE_REGISTER_FILES.filter((file) => file.country === 'SE' && !SE_GEODATA_SAMPLE_FILES.includes(file));

beforeAll(async () => {
  dir = await tempDir('se-register-samples');
  const plan = planSample(PARCELS, SEED);
  for (const file of SE_REGISTER_SAMPLE_FILES) {
    const target = path.join(dir, file.fileName);
    await file.write({ path: target, plan, seed: SEED, parcels: PARCELS });
    written.set(file.sourceId, target);
  }
});

const properties = () => [...sampleSwedishProperties(SEED, PARCELS)];

describe('Swedish register samples', () => {
  it('name each file as its source reads it', () => {
    for (const file of SE_REGISTER_SAMPLE_FILES) expect(file.fileName).toBe(getSource(file.sourceId).inputFileName);
  });

  it('energy declarations load without a reject, on the sample properties that have buildings', async () => {
    const source = getSource('se-energy');
    const { rows, rejects } = await parseAll(source, written.get('se-energy')!);
    expect(rejects).toEqual([]);
    const truth = properties().map((p, i, all) => sampleDeclarationOf(p, SEED, all[i - 1])).filter((d) => d !== null);
    expect(rows.length).toBe(truth.length);
    expect(rows.length).toBeGreaterThan(PARCELS * 0.2);
    const staged = rows.map((r) => rowObject(source, r.values));
    // The designation without its municipality, plus the kommunkod, gives back the property's cadastreId.
    expect(staged.map((r) => [r.certificate_id, r.cadastre_id, r.label, r.issued_date])).toEqual(truth.map((d) => [String(d.id), d.cadastreId, d.label, d.performed]));
    expect(staged.every((r) => typeof r.energy_performance_kwh_m2 === 'number' && r.valid_to_date)).toBe(true);
    // Some declarations cover two properties of one kvarter: each is read back, the declared one first.
    expect(staged.map((r) => r.cadastre_ids)).toEqual(truth.map((d) => d.cadastreIds));
    const shared = truth.filter((d) => d.cadastreIds.length === 2);
    expect(shared.length).toBeGreaterThan(0);
    const byId = new Map(properties().map((p) => [p.cadastreId, p]));
    for (const d of shared) expect(byId.get(d.cadastreIds[1])!.trakt).toBe(byId.get(d.cadastreId)!.trakt);
  });

  it('companies sit at real sample addresses, in register spelling, merged from all three files', async () => {
    const source = getSource('se-business');
    const { rows, rejects } = await parseAll(source, written.get('se-business')!);
    expect(rejects).toEqual([]);
    const truth = properties().flatMap((p) => sampleSwedishCompaniesOf(p, SEED));
    expect(truth.length).toBeGreaterThan(50);
    const byKind = (kind: string) => rows.map((r) => rowObject(source, r.values)).filter((r) => r.record_kind === kind);
    expect(byKind('BOLAGSVERKET').map((r) => r.org_id)).toEqual(truth.map((c) => c.orgId));
    expect(byKind('SCB').map((r) => [r.org_id, r.nace_code, (r.address_lines as string[])[0], r.postal_code])).toEqual(
      truth.map((c) => [c.identity, `${c.sni.slice(0, 2)}.${c.sni.slice(2)}`, c.registerStreet, c.registerPostalCode.replace(/\s/g, '')]),
    );
    expect(byKind('WORKPLACE').map((r) => (r.address_lines as string[])[0])).toEqual(truth.filter((c) => c.workplaceId).map((c) => c.visitingStreet));
    // Register spelling differs from the street sign somewhere (abbreviated GATAN, letters run in).
    expect(truth.some((c) => c.registerStreet !== c.street.toLocaleUpperCase('sv-SE'))).toBe(true);
    const addressIds = new Set(properties().flatMap((p) => p.addresses.map((a) => a.objektidentitet)));
    expect(truth.every((c) => addressIds.has(c.addressId))).toBe(true);
  });

  it('organisation numbers are unique and never a personnummer (third and fourth digits 20 or more)', () => {
    // Blocks of 100,000 and their boundaries, up to the company numbers of a national sample.
    const numbers = [0, 99_999, 100_000, 101_304, 1_826_304, 7_999_999, 8_000_000, 26_399_999];
    for (let n = 0; n < 30_000_000; n += 99_991) numbers.push(n);
    const issued = numbers.map(organisationsnummer);
    expect(new Set(issued).size).toBe(new Set(numbers).size);
    for (const number of issued) {
      expect(number).toMatch(/^\d{10}$/);
      expect(Number(number.slice(2, 4))).toBeGreaterThanOrEqual(20);
    }
  });

  it('sales are of real sample properties, with the code tables they use', async () => {
    const source = getSource('se-transactions');
    const { rows, rejects } = await parseAll(source, written.get('se-transactions')!);
    expect(rejects).toEqual([]);
    const truth = properties().flatMap((p) => sampleSalesOf(p, SEED));
    expect(rows.map((r) => [r.values[0], r.values[1]])).toEqual(truth.map((s) => [s.kopId, s.cadastreId]));
    const cadastreIds = new Set(properties().map((p) => p.cadastreId));
    expect(rows.every((r) => cadastreIds.has(r.values[1] as string))).toBe(true);
  });

  it('some buyers are aktiebolag of the business sample, with Luhn-checked numbers, buying the property they sit on', async () => {
    const source = getSource('se-transactions');
    const { rows } = await parseAll(source, written.get('se-transactions')!);
    const organisationBuyers = rows.flatMap((r) => {
      const row = rowObject(source, r.values);
      const parties = JSON.parse(row.parties as string) as { role: string; kind: string; org_id: string | null; org_country: string | null }[];
      return parties.filter((p) => p.role === 'BUYER' && p.kind === 'ORGANIZATION').map((p) => ({ cadastreId: row.cadastre_id as string, orgId: p.org_id, country: p.org_country }));
    });
    expect(organisationBuyers.length).toBeGreaterThan(5);
    // The parser takes a Swedish number only when its check digit holds, and keeps its ten digits.
    expect(organisationBuyers.every((b) => b.country === 'SE' && /^\d{10}$/.test(b.orgId ?? ''))).toBe(true);
    const companies = properties().flatMap((p) => sampleSwedishCompaniesOf(p, SEED));
    const aktiebolag = new Map(companies.filter((c) => !c.soleTrader).map((c) => [c.identity, c]));
    for (const buyer of organisationBuyers) {
      const company = aktiebolag.get(buyer.orgId!);
      expect(company, `buyer ${buyer.orgId} is a company the business sample writes`).toBeDefined();
      // A tenant that owns its premises: the company sits on the property it bought.
      expect(company!.cadastreId).toBe(buyer.cadastreId);
    }
    const truth = properties().flatMap((p) => sampleSalesOf(p, SEED)).flatMap((s) => s.buyerOrganisations);
    expect(organisationBuyers.map((b) => b.orgId)).toEqual(truth);
  });

  it('areas: the 290 real municipalities, the postal codes in use, land allocations on sample properties', async () => {
    const source = getSource('se-area');
    const { rows, rejects } = await parseAll(source, written.get('se-area')!);
    expect(rejects).toEqual([]);
    const kinds = rows.map((r) => r.values[0]);
    expect(kinds.filter((k) => k === 'MUNICIPALITY')).toHaveLength(290);
    const postalCodes = new Set(properties().flatMap((p) => p.addresses.map((a) => String(a.postnummer).padStart(5, '0'))));
    expect(kinds.filter((k) => k === 'POSTAL_CODE')).toHaveLength(postalCodes.size);
    expect(kinds.filter((k) => k === 'LAND_ALLOCATION').length).toBeGreaterThan(0);
  });

  it('writes the same bytes for the same seed', async () => {
    const digest = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex');
    const again = await tempDir('se-register-samples-again');
    const plan = planSample(PARCELS, SEED);
    for (const file of SE_REGISTER_SAMPLE_FILES) {
      const target = path.join(again, file.fileName);
      await file.write({ path: target, plan, seed: SEED, parcels: PARCELS });
      expect(await digest(target)).toBe(await digest(written.get(file.sourceId)!));
    }
  });
});
