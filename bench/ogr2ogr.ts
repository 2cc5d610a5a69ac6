import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { quoteIdent } from '../lib/db.js';
import { settle } from './database.js';
import { timed } from './stats.js';

/**
 * What a user would reach for instead: GDAL's ogr2ogr loading the same register file into
 * PostGIS, reprojected to EPSG:4326, with COPY and a GiST index, a zip read straight through
 * /vsizip/ (nothing unpacked).
 */

export interface OgrMeasurement {
  seconds: number;
  rows: number;
  /** Rows whose geometry has the expected type (MultiPolygon for parcels, Point for addresses). */
  rowsWithExpectedGeometry: number;
}

export interface OgrLoad {
  label: string;
  table: string;
  /** The full ogr2ogr command line, for the report. */
  command: string[];
  expectedGeometry: 'MULTIPOLYGON' | 'POINT';
  /** Files to remove afterwards. */
  dispose(): Promise<void>;
}

const pgDsn = (database: string) => `PG:host=127.0.0.1 user=postgres dbname=${database}`;

/**
 * The Teig GML has two geometry properties per feature (område, the polygon, and
 * representasjonspunkt, a point). Without a schema GDAL's GML reader keeps only one geometry,
 * the point, and types kommunenummer as an integer (dropping the leading zero). A GFS template
 * names the polygon as the geometry and the columns with their types, which is what a user
 * who checks the result ends up writing; it also spares GDAL its schema-discovery pass.
 */
export const TEIG_GFS_TEMPLATE = `<GMLFeatureClassList>
  <GMLFeatureClass>
    <Name>Teig</Name>
    <ElementPath>Teig</ElementPath>
    <GeomPropertyDefn>
      <Name>geom</Name>
      <ElementPath>område</ElementPath>
      <Type>Polygon</Type>
    </GeomPropertyDefn>
    <SRSName>urn:ogc:def:crs:EPSG::25833</SRSName>
    <PropertyDefn><Name>lokalid</Name><ElementPath>identifikasjon|Identifikasjon|lokalId</ElementPath><Type>String</Type></PropertyDefn>
    <PropertyDefn><Name>kommunenummer</Name><ElementPath>kommunenummer</ElementPath><Type>String</Type></PropertyDefn>
    <PropertyDefn><Name>enhet_kommunenummer</Name><ElementPath>matrikkelenhet|Matrikkelenhet|kommunenummer</ElementPath><Type>StringList</Type></PropertyDefn>
    <PropertyDefn><Name>gardsnummer</Name><ElementPath>matrikkelenhet|Matrikkelenhet|gardsnummer</ElementPath><Type>IntegerList</Type></PropertyDefn>
    <PropertyDefn><Name>bruksnummer</Name><ElementPath>matrikkelenhet|Matrikkelenhet|bruksnummer</ElementPath><Type>IntegerList</Type></PropertyDefn>
    <PropertyDefn><Name>festenummer</Name><ElementPath>matrikkelenhet|Matrikkelenhet|festenummer</ElementPath><Type>IntegerList</Type></PropertyDefn>
    <PropertyDefn><Name>seksjonsnummer</Name><ElementPath>matrikkelenhet|Matrikkelenhet|seksjonsnummer</ElementPath><Type>IntegerList</Type></PropertyDefn>
    <PropertyDefn><Name>hovedteig</Name><ElementPath>matrikkelenhet|Matrikkelenhet|hovedteig</ElementPath><Type>StringList</Type></PropertyDefn>
    <PropertyDefn><Name>matrikkelnummertekst</Name><ElementPath>matrikkelnummerTekst</ElementPath><Type>String</Type></PropertyDefn>
    <PropertyDefn><Name>lagretberegnetareal</Name><ElementPath>teigareal|Areal|lagretBeregnetAreal</ElementPath><Type>Real</Type></PropertyDefn>
  </GMLFeatureClass>
</GMLFeatureClassList>
`;

const COMMON = ['-overwrite', '-t_srs', 'EPSG:4326', '-lco', 'GEOMETRY_NAME=geom', '-lco', 'SPATIAL_INDEX=GIST', '--config', 'PG_USE_COPY', 'YES'];

export async function teigLoad(database: string, zipPath: string, entry: string): Promise<OgrLoad> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-bench-ogr-'));
  const gfs = path.join(dir, 'teig.gfs');
  await writeFile(gfs, TEIG_GFS_TEMPLATE);
  const table = 'ogr_teig';
  return {
    label: 'Teig GML',
    table,
    command: ['ogr2ogr', '-f', 'PostgreSQL', pgDsn(database), `/vsizip/${zipPath}/${entry}`, 'Teig', '-oo', `GFS_TEMPLATE=${gfs}`, '-nln', table, '-nlt', 'PROMOTE_TO_MULTI', ...COMMON],
    expectedGeometry: 'MULTIPOLYGON',
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** GDAL 3.6's CSV driver detects the `;` itself (its SEPARATOR open option came later); -s_srs, as the file has no CRS. */
export async function addressLoad(database: string, zipPath: string, entry: string): Promise<OgrLoad> {
  const table = 'ogr_address';
  return {
    label: 'address CSV',
    table,
    command: [
      'ogr2ogr', '-f', 'PostgreSQL', pgDsn(database), `/vsizip/${zipPath}/${entry}`,
      '-oo', 'X_POSSIBLE_NAMES=Øst', '-oo', 'Y_POSSIBLE_NAMES=Nord', '-s_srs', 'EPSG:25833', '-nln', table, ...COMMON,
    ],
    expectedGeometry: 'POINT',
    dispose: async () => undefined,
  };
}

/** A GeoPackage carries its CRS (EPSG:3006) and geometry type itself: ogr2ogr needs no schema hints. */
export async function seCadastreLoad(database: string, gpkgPath: string, layer: string): Promise<OgrLoad> {
  const table = 'ogr_se_parcel';
  return {
    label: 'Fastighetsindelning GeoPackage',
    table,
    command: ['ogr2ogr', '-f', 'PostgreSQL', pgDsn(database), gpkgPath, layer, '-nln', table, '-nlt', 'PROMOTE_TO_MULTI', ...COMMON],
    expectedGeometry: 'MULTIPOLYGON',
    dispose: async () => undefined,
  };
}

function runCommand(command: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command[0], command.slice(1), { env: { ...process.env, PG_USE_COPY: 'YES' }, maxBuffer: 16 * 2 ** 20 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${command.slice(0, 2).join(' ')} … failed: ${error.message}\n${stderr.slice(-2000)}`));
      else resolve();
    });
  });
}

export async function measureOgr(pool: pg.Pool, load: OgrLoad): Promise<OgrMeasurement> {
  await pool.query(`DROP TABLE IF EXISTS ${quoteIdent(load.table)}`);
  await settle(pool);
  const { seconds } = await timed(() => runCommand(load.command));
  const counted = await pool.query<{ rows: string; expected: string }>(
    `SELECT count(*) AS rows, count(*) FILTER (WHERE GeometryType(geom) = $1) AS expected FROM ${quoteIdent(load.table)}`,
    [load.expectedGeometry],
  );
  return { seconds, rows: Number(counted.rows[0].rows), rowsWithExpectedGeometry: Number(counted.rows[0].expected) };
}

export async function dropOgrTable(pool: pg.Pool, load: OgrLoad): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS ${quoteIdent(load.table)}`);
}
