import { describe, expect, it } from 'vitest';
import { LAND_REGISTRY_SAMPLE_FILE, titledUnits } from '../../../sample/no/land-registry.js';
import { sampleCompanies } from '../../../sample/no/companies.js';
import { parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { noLandRegistry } from '../../../sources/no/land-registry/adapter.js';
import { LAND_REGISTRY_STAGING_COLUMNS } from '../../../sources/no/land-registry/parse.js';
import { staged, writeAndParse } from './written-register.js';

const plan = planSample(2400, '7');

describe('sample land register', () => {
  it('has one blad for every titled unit of the sample, loading without a reject', async () => {
    const { rows, records } = await writeAndParse(LAND_REGISTRY_SAMPLE_FILE, noLandRegistry, plan);
    expect(records.filter((r) => r.kind === 'reject')).toEqual([]);
    const blad = staged(records, LAND_REGISTRY_STAGING_COLUMNS.map((c) => c.name));
    expect(blad).toHaveLength(rows);
    const units = [...parcelsOfPlan(plan, { withAddresses: false })].flatMap((p) => titledUnits(p).map((u) => u.cadastreId));
    expect(blad.map((b) => b.cadastre_id).sort()).toEqual([...new Set(units)].sort());
    expect(units.some((id) => !id.endsWith('-0'))).toBe(true); // sections have their own blad

    const holders = blad.flatMap((b) => JSON.parse(b.holders as string) as { kind: string; birth_year: number | null; org_id: string | null; share_denominator: number }[]);
    const persons = blad.flatMap((b) => JSON.parse(b.persons as string) as { name: string }[]);
    expect(holders.filter((h) => h.kind === 'PERSON').every((h) => h.birth_year! >= 1930 && h.birth_year! <= 2004)).toBe(true);
    expect(persons.every((p) => / /.test(p.name))).toBe(true);
    expect(new Set(holders.map((h) => h.share_denominator))).toEqual(new Set([1, 2, 4]));
    // Organisations: companies of the business sample among them, so their property lists join up.
    const companyNumbers = new Set([...sampleCompanies(plan, 'enhet')].map((c) => c.record.organisasjonsnummer));
    const orgHolders = holders.filter((h) => h.kind === 'ORGANIZATION');
    expect(orgHolders.filter((h) => companyNumbers.has(h.org_id!)).length).toBeGreaterThan(20);

    const transfers = blad.flatMap((b) => JSON.parse(b.transfers as string) as { kind: string; price_amount: number | null }[]);
    expect(new Set(transfers.map((t) => t.kind))).toEqual(new Set(['SALE', 'INHERITANCE', 'GIFT', 'SETTLEMENT']));
    expect(transfers.filter((t) => t.kind === 'SALE').every((t) => t.price_amount! > 100_000)).toBe(true);
  });
});
