import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planSample } from '../../../sample/plan.js';
import { planSwedishSample, propertiesOfSwedishPlan } from '../../../sample/se/properties.js';
import { SE_PLAN_CELLS, SE_ZONING_SAMPLE_FILE } from '../../../sample/se/zoning-plans.js';

const SEED = '7';
const PROPERTIES = 1200;
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function writeSample(): Promise<{ text: string; rows: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'se-zoning-sample-'));
  dirs.push(dir);
  const file = path.join(dir, SE_ZONING_SAMPLE_FILE.fileName);
  const { rows } = await SE_ZONING_SAMPLE_FILE.write({ path: file, plan: planSample(PROPERTIES, SEED), sePlan: planSwedishSample(PROPERTIES, SEED), seed: SEED, parcels: PROPERTIES });
  return { text: await readFile(file, 'utf8'), rows };
}

describe('sample detaljplaner', () => {
  it('tile each municipality\'s property grid: every property under at most one plan, most under one', async () => {
    const { text, rows } = await writeSample();
    const plans = text.trim().split('\n').map((line) => JSON.parse(line));
    expect(plans).toHaveLength(rows);
    const boxes = new Map<string, number[][]>();
    for (const plan of plans) {
      const ring = plan.planomrade.coordinates[0];
      const list = boxes.get(plan.planidentitet.kommunkod) ?? [];
      list.push([ring[0][0], ring[0][1], ring[2][0], ring[2][1]]);
      boxes.set(plan.planidentitet.kommunkod, list);
    }
    let covered = 0, properties = 0;
    for (const property of propertiesOfSwedishPlan(planSwedishSample(PROPERTIES, SEED))) {
      properties++;
      const corners = property.areas[0].exterior;
      const east = (corners[0][0] + corners[2][0]) / 2, north = (corners[0][1] + corners[2][1]) / 2;
      const hits = (boxes.get(property.kommunkod) ?? []).filter(([w, s, e, n]) => east > w && east < e && north > s && north < n);
      expect(hits.length).toBeLessThanOrEqual(1);
      covered += hits.length;
    }
    expect(covered / properties).toBeGreaterThan(0.85);
    expect(plans.length).toBeGreaterThanOrEqual(properties / (SE_PLAN_CELLS * SE_PLAN_CELLS));
  });

  it('hold plans in force, under review and repealed, byggnadsarea in % and in m², laga kraft after antagande', async () => {
    const plans = (await writeSample()).text.trim().split('\n').map((line) => JSON.parse(line));
    const statuses = new Set(plans.map((p) => p.status));
    for (const status of ['lagakraftvunnen', 'granskning', 'upphävd']) expect(statuses).toContain(status);
    const kinds = new Set(plans.flatMap((p) => p.utnyttjandegrad.map((rule: { typ: string }) => rule.typ)));
    expect(kinds).toEqual(new Set(['byggnadsarea_procent', 'byggnadsarea_m2', 'bruttoarea_m2']));
    for (const plan of plans.filter((p) => p.lagakraftdatum)) expect(plan.lagakraftdatum > plan.antagandedatum).toBe(true);
  });

  it('are the same file from the same seed', async () => {
    expect((await writeSample()).text).toBe((await writeSample()).text);
  });
});
