import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { deriveStep, renderDeriveNight } from '../../bench/derive-ledger.js';
import { createTestDatabase } from '../support/database.js';

describe('the derive step read from the run ledger', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // A refresh: two sources over 30 minutes, then its derive step (run `<id>-derive`), the countries side by side.
    await pool.query(`
      INSERT INTO run (run_id, kind, sources, started_at) VALUES
        ('r1', 'refresh', '{no-address,se-cadastre}', '2026-11-22 06:00Z'),
        ('r1-derive', 'derive', '{}', '2026-11-22 06:30Z'),
        ('r2', 'derive', '{}', '2026-11-22 08:00Z'),
        ('r3', 'derive', '{}', '2026-11-22 09:00Z');
      INSERT INTO source_run (run_id, source_id, country, outcome, rows_read, rows_staged, inserted, updated, deleted, started_at, finished_at) VALUES
        ('r1', 'no-address', 'NO', 'published', 10, 10, 10, 0, 0, '2026-11-22 06:00Z', '2026-11-22 06:20Z'),
        ('r1', 'se-cadastre', 'SE', 'published', 5, 5, 5, 0, 0, '2026-11-22 06:01Z', '2026-11-22 06:30Z'),
        ('r1-derive', 'derive-no-tenants', 'NO', 'published', 100, 90, 90, 0, 0, '2026-11-22 06:30Z', '2026-11-22 06:34Z'),
        ('r1-derive', 'derive-no-valuations', 'NO', 'published', 40, 300, 300, 0, 0, '2026-11-22 06:34Z', '2026-11-22 06:42Z'),
        ('r1-derive', 'derive-se-tenants', 'SE', 'published', 200, 150, 150, 0, 0, '2026-11-22 06:30Z', '2026-11-22 06:47Z'),
        ('r2', 'derive-no-tenants', 'NO', 'published', 100, 90, 0, 0, 0, '2026-11-22 08:00Z', '2026-11-22 08:03Z'),
        ('r2', 'derive-no-valuations', 'NO', 'published', 40, 300, 0, 2, 0, '2026-11-22 08:03Z', '2026-11-22 08:09Z'),
        ('r2', 'derive-se-tenants', 'SE', 'published', 200, 150, 0, 0, 0, '2026-11-22 08:00Z', '2026-11-22 08:12Z'),
        ('r3', 'derive-no-tenants', 'NO', 'running', 0, 0, 0, 0, 0, '2026-11-22 09:00Z', NULL);
      UPDATE source_run SET durations_ms = '{"download": 1200, "stage": 900000, "publish": 299000}' WHERE run_id = 'r1' AND source_id = 'se-cadastre';
    `);
  });
  afterAll(async () => {
    await pool.end();
    await drop();
  });

  it('times a refresh\'s derive step from its first dataset\'s start to its last one\'s end, and its sources before it', async () => {
    const step = await deriveStep(pool, 'r1');
    expect(step.wallSeconds).toBe(17 * 60);
    expect(step.sources).toMatchObject({ count: 2, seconds: 30 * 60, wholeSeconds: 47 * 60 });
    expect(step.sources?.longest.map((time) => [time.sourceId, time.seconds])).toEqual([['se-cadastre', 29 * 60], ['no-address', 20 * 60]]);
    expect(step.datasets.map((d) => [d.source_id, d.seconds, d.changes])).toEqual([
      ['derive-no-tenants', 240, 90],
      ['derive-no-valuations', 480, 300],
      ['derive-se-tenants', 1020, 150],
    ]);
  });

  it('renders each run side by side with its verdict against the 15-minute target', async () => {
    const steps = [await deriveStep(pool, 'r1'), await deriveStep(pool, 'r2')];
    const section = renderDeriveNight(steps, [{ country: 'NO', parcels: 1, transactions: 2, companies: 3 }]);
    expect(section).toMatch(/^<!-- national-derive:start -->/);
    expect(section).toContain(
      'in **17.0 min** (target: within 15 min, **not met**); before it, the refresh loaded its 2 sources in 30.0 min' +
        ' (longest: se-cadastre 29.0 min (download 1 s, stage 900 s, publish 299 s); no-address 20.0 min).' +
        ' The whole refresh, its first source\'s start to its last dataset\'s end: **47.0 min** (target: under 20 min, **not met**)',
    );
    expect(section).toContain('`r2` (derive, derive step from 2026-11-22 08:00 UTC): NO and SE, every dataset, in **12.0 min** (target: within 15 min, **met**)');
    expect(section).toContain('| valuations | NO | 40 | 300 | 480 s, published, 300 changes | 360 s, published, 2 changes |');
  });

  it('refuses a run that is still computing, or that has no derived datasets', async () => {
    await expect(deriveStep(pool, 'r3')).rejects.toThrow(/still computing derive-no-tenants/);
    await expect(deriveStep(pool, 'missing')).rejects.toThrow(/no run missing/);
  });
});
