import { expect, it } from 'vitest';
import { polygonCoversPointSql } from '../../lib/point-probe-sql.js';
import { testDatabaseSession } from '../support/database.js';

const session = testDatabaseSession();

// A parcel with a hole, in degrees, with its box's corners outside it (the triangle's top side is slanted).
const PARCEL = 'POLYGON((18 59, 18.01 59, 18.01 59.01, 18 59.005, 18 59), (18.004 59.002, 18.006 59.002, 18.006 59.004, 18.004 59.004, 18.004 59.002))';

it('answers as ST_Covers does: a point on an edge, a corner or the hole\'s edge is covered, one in the hole or in the box outside is not', async () => {
  const points: Array<[string, number, number]> = [
    ['inside', 18.002, 59.001],
    ['on the outer edge', 18.005, 59],
    ['on a corner', 18.01, 59.01],
    ['on a vertex inside its box', 18, 59.005],
    ['on the hole\'s edge', 18.005, 59.002],
    ['in the hole', 18.005, 59.003],
    ['in the box, outside the polygon', 18.001, 59.009],
    ['a tenth of a millimetre outside the edge', 18.005, 59 - 1e-9],
    ['far away', 10.75, 59.91],
  ];
  const result = await session().query(
    `SELECT name, ST_Covers(poly, pt) AS covers, ${polygonCoversPointSql('poly', 'pt')} AS probe
     FROM unnest($1::text[], $2::float8[], $3::float8[]) AS p(name, lon, lat),
          LATERAL (SELECT ST_GeomFromText($4, 4326) AS poly, ST_SetSRID(ST_MakePoint(lon, lat), 4326) AS pt) g`,
    [points.map((p) => p[0]), points.map((p) => p[1]), points.map((p) => p[2]), PARCEL],
  );
  const answers = Object.fromEntries(result.rows.map((row) => [row.name, row.probe]));
  expect(answers).toEqual(Object.fromEntries(result.rows.map((row) => [row.name, row.covers])));
  expect(answers).toMatchObject({ inside: true, 'on the outer edge': true, 'on a corner': true, "on the hole's edge": true, 'in the hole': false, 'in the box, outside the polygon': false });
});
