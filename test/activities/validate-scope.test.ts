import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotScope } from '../../activities/validate.js';
import { closePools, getPool } from '../../lib/db.js';
import { getSource } from '../../sources/registry.js';
import { createTestDatabase } from '../support/database.js';

/**
 * The publish scope validation gives a snapshot: the whole country, or only the municipalities
 * its staged rows hold, by the source's own rule (`scopeOf`). Which live rows a load may delete
 * follows from it.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const STAGED = 'scope_probe_staged';

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  await getPool().query(`CREATE TABLE ${STAGED} (municipality_code text)`);
  await getPool().query(`INSERT INTO ${STAGED} VALUES ('0180'), ('0380'), ('0180')`);
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

describe('snapshotScope asks the source', () => {
  it("a Geonorge national file replaces Norway; a municipality's file only its municipalities", async () => {
    const cadastre = getSource('no-cadastre');
    expect(await snapshotScope(cadastre, '/data/Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip', STAGED)).toEqual({ country: 'NO', municipalities: null });
    expect(await snapshotScope(cadastre, '/data/Basisdata_0301_Oslo_25833_MatrikkelenEiendomskartTeig_GML.zip', STAGED)).toEqual({ country: 'NO', municipalities: ['0180', '0380'] });
  });

  it("a Swedish GeoPackage is scoped by its rows: Geonorge's 0000 in its name does not make it national", async () => {
    expect(await snapshotScope(getSource('se-cadastre'), '/data/lan_0000_fastighetsindelning.gpkg', STAGED)).toEqual({ country: 'SE', municipalities: ['0180', '0380'] });
  });

  it('a business register file replaces the whole country whatever it is called', async () => {
    expect(await snapshotScope(getSource('se-business'), '/tmp/foretag_stockholm.tar', STAGED)).toEqual({ country: 'SE', municipalities: null });
  });
});
