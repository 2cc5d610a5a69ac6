/**
 * GeoPackage reader (OGC 12-128r18): the file is opened as the SQLite database it is
 * (better-sqlite3, read-only), its layer found through `gpkg_contents` and
 * `gpkg_geometry_columns`, its CRS through `gpkg_spatial_ref_sys`, and its rows iterated one at
 * a time (`Statement.iterate()`), so memory stays flat whatever the layer's size. Geometry blobs
 * are decoded by `gpkg-blob.ts`.
 *
 * What makes a file unusable fails with InputFormatError (not SQLite, not a GeoPackage, the
 * layer missing or in the wrong CRS); what makes one row unusable (a bad or empty blob, a blob
 * in another CRS) is yielded as a row error for the caller to reject.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { InputFormatError, inputFormatError } from './input-error.js';
import { readGpkgGeometry, type GpkgGeometryHeader } from './gpkg-blob.js';
import type { WkbGeometry } from './wkb.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** `GPKG` (1.2+), `GP10`, `GP11` (1.0, 1.1) in the SQLite header's application_id. */
const APPLICATION_IDS = new Set([0x47504b47, 0x47503130, 0x47503131]);

export function isSqliteFile(filePath: string): boolean {
  const head = Buffer.alloc(16);
  const fd = openSync(filePath, 'r');
  try {
    return readSync(fd, head, 0, 16, 0) === 16 && head.equals(SQLITE_MAGIC);
  } finally {
    closeSync(fd);
  }
}

export interface GeoPackageLayer {
  table: string;
  geometryColumn: string;
  geometryType: string;
  srsId: number;
  /** `EPSG:3006` when the CRS is an EPSG one. */
  crs: string;
  /** The integer primary key (`fid`), the row's position in the file. */
  idColumn: string;
  /** Attribute columns, without the key and the geometry. */
  columns: string[];
  bbox: [number, number, number, number] | null;
}

/** Feature ids from `first` to `last`, both included. */
export interface FidRange {
  first: number;
  last: number;
}

export interface GeoPackageFeature {
  /** The row's feature id (`fid`), increasing in iteration order. */
  position: number;
  attributes: Record<string, unknown>;
  /** Set when `error` is not. */
  geometry: WkbGeometry | null;
  header: GpkgGeometryHeader | null;
  /** Why the row's geometry cannot be used (bad blob, empty, other CRS, missing). */
  error: string | null;
}

/**
 * SQLite's own errors on the file (SQLITE_NOTADB "file is not a database", SQLITE_CORRUPT
 * "database disk image is malformed", …) as the InputFormatError they are: the file is
 * damaged, and no retry reads it better. Anything else (a misuse of the driver) is passed on.
 */
function sqliteFailure(error: unknown, label: string, at: string): Error {
  if (!(error instanceof Database.SqliteError)) return error as Error;
  return inputFormatError(error, { label, problem: 'is not a readable SQLite database (truncated or corrupt?)', at });
}

/** An SQLite identifier (table or column name from the file), quoted. */
export const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

export class GeoPackage {
  private constructor(private readonly db: Database.Database, readonly label: string) {}

  /** Opens a file read-only; InputFormatError when it is not a GeoPackage. */
  static open(filePath: string, label = path.basename(filePath)): GeoPackage {
    if (!isSqliteFile(filePath)) throw new InputFormatError(`${label} is not a GeoPackage: it is not an SQLite database file`);
    let db: Database.Database;
    try {
      db = new Database(filePath, { readonly: true, fileMustExist: true });
    } catch (error) {
      throw new InputFormatError(`${label} cannot be opened as SQLite: ${(error as Error).message}`, { original: error });
    }
    const gpkg = new GeoPackage(db, label);
    try {
      const tables = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`).pluck().all() as string[]);
      const missing = ['gpkg_contents', 'gpkg_geometry_columns', 'gpkg_spatial_ref_sys'].filter((t) => !tables.has(t));
      const applicationId = db.pragma('application_id', { simple: true }) as number;
      if (missing.length) {
        throw new InputFormatError(`${label} is an SQLite file but not a GeoPackage: it has no ${missing.join(', ')} (application_id 0x${applicationId.toString(16)})`);
      }
    } catch (error) {
      db.close();
      if (error instanceof InputFormatError) throw error;
      throw new InputFormatError(`${label} is not a readable SQLite database: ${(error as Error).message}`, { original: error });
    }
    return gpkg;
  }

  /** Runs a query on the file; SQLite's errors become InputFormatErrors naming the file and `at`. */
  private query<T>(at: string, run: () => T): T {
    try {
      return run();
    } catch (error) {
      throw sqliteFailure(error, this.label, at);
    }
  }

  /** application_id says GeoPackage (GDAL and the OGC's own files set it). */
  get hasGeoPackageApplicationId(): boolean {
    return this.query('while reading its application_id', () => APPLICATION_IDS.has(this.db.pragma('application_id', { simple: true }) as number));
  }

  featureLayers(): string[] {
    return this.query('while listing its layers', () => this.db.prepare(`SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY table_name`).pluck().all() as string[]);
  }

  /** The feature layer `name`; with `expectedSrid`, InputFormatError unless it is in that EPSG CRS. */
  layer(name: string, expectedSrid?: number): GeoPackageLayer {
    return this.query(`while reading layer "${name}"`, () => this.readLayer(name, expectedSrid));
  }

  private readLayer(name: string, expectedSrid?: number): GeoPackageLayer {
    const content = this.db
      .prepare(`SELECT table_name, min_x, min_y, max_x, max_y FROM gpkg_contents WHERE data_type = 'features' AND lower(table_name) = lower(?)`)
      .get(name) as { table_name: string; min_x: number | null; min_y: number | null; max_x: number | null; max_y: number | null } | undefined;
    if (!content) throw new InputFormatError(`${this.label} has no feature layer "${name}" (layers: ${this.featureLayers().join(', ') || 'none'})`);
    const table = content.table_name;
    const column = this.db
      .prepare(`SELECT column_name, geometry_type_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?`)
      .get(table) as { column_name: string; geometry_type_name: string; srs_id: number } | undefined;
    if (!column) throw new InputFormatError(`${this.label}: layer "${table}" has no entry in gpkg_geometry_columns`);
    const srs = this.db
      .prepare(`SELECT organization, organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = ?`)
      .get(column.srs_id) as { organization: string; organization_coordsys_id: number } | undefined;
    if (!srs) throw new InputFormatError(`${this.label}: layer "${table}" names srs_id ${column.srs_id}, which gpkg_spatial_ref_sys does not define`);
    const crs = `${srs.organization.toUpperCase()}:${srs.organization_coordsys_id}`;
    if (expectedSrid !== undefined && crs !== `EPSG:${expectedSrid}`) {
      throw new InputFormatError(`${this.label}: layer "${table}" is in ${crs}, expected EPSG:${expectedSrid}`);
    }
    const info = this.db.prepare(`PRAGMA table_info(${quoteIdentifier(table)})`).all() as { name: string; type: string; pk: number }[];
    if (!info.length) throw new InputFormatError(`${this.label}: layer "${table}" has no table`);
    const key = info.filter((c) => c.pk > 0);
    if (key.length !== 1 || key[0].type.toUpperCase() !== 'INTEGER') throw new InputFormatError(`${this.label}: layer "${table}" has no INTEGER PRIMARY KEY, which a GeoPackage feature table must have`);
    const idColumn = key[0].name;
    const bbox = [content.min_x, content.min_y, content.max_x, content.max_y];
    return {
      table,
      geometryColumn: column.column_name,
      geometryType: column.geometry_type_name.toUpperCase(),
      srsId: column.srs_id,
      crs,
      idColumn,
      columns: info.map((c) => c.name).filter((n) => n !== idColumn && n !== column.column_name),
      bbox: bbox.every((v) => typeof v === 'number') ? (bbox as [number, number, number, number]) : null,
    };
  }

  count(layer: GeoPackageLayer): number {
    return this.query(`while counting layer "${layer.table}"`, () => this.db.prepare(`SELECT count(*) FROM ${quoteIdentifier(layer.table)}`).pluck().get() as number);
  }

  /**
   * The layer's rows in feature-id order (the file's own order, so a retried stage resumes by
   * position), one at a time. `columns` limits the attributes read; `keep`, when given, skips
   * the rows it refuses before they are read (a night's few changed rows, see keptRows).
   */
  *features(layer: GeoPackageLayer, columns: string[] = layer.columns, keep?: (position: number) => boolean): Generator<GeoPackageFeature> {
    for (const row of keep ? this.keptRows(layer, columns, keep) : this.rows(layer, columns)) {
      const attributes: Record<string, unknown> = {};
      columns.forEach((column, i) => (attributes[column] = row.values[i]));
      yield { position: row.position, attributes, ...decode(row.blob, layer) };
    }
  }

  /**
   * The rows `keep` accepts, as `rows` gives them: the fids are read a page at a time (the key
   * alone), and each kept row by its fid. A night keeps a few percent of the rows, and reading
   * every row's attributes and geometry into JavaScript to drop most of them was most of
   * se-building's night stage.
   */
  private *keptRows(layer: GeoPackageLayer, columns: string[], keep: (position: number) => boolean): Generator<{ position: number; values: unknown[]; blob: unknown }> {
    const id = quoteIdentifier(layer.idColumn);
    const at = `while reading layer "${layer.table}"`;
    const { ids, one } = this.query(at, () => ({
      ids: this.db.prepare(`SELECT ${id} FROM ${quoteIdentifier(layer.table)} WHERE ${id} > ? ORDER BY ${id} LIMIT ${FID_PAGE}`).pluck(),
      one: this.db.prepare(`SELECT ${[layer.geometryColumn, ...columns].map(quoteIdentifier).join(', ')} FROM ${quoteIdentifier(layer.table)} WHERE ${id} = ?`).raw(),
    }));
    for (let after = Number.MIN_SAFE_INTEGER; ;) {
      const page = this.query(`${at} after fid ${after}`, () => ids.all(after) as number[]);
      if (!page.length) return;
      after = Number(page[page.length - 1]);
      for (const fid of page) {
        const position = Number(fid);
        if (!keep(position)) continue;
        const row = this.query(`${at} at fid ${position}`, () => one.get(fid) as unknown[]);
        yield { position, values: row.slice(1), blob: row[0] };
      }
    }
  }

  /** The layer's first and last feature id (by its integer key, without reading the rows); null when it has none. */
  fidBounds(layer: GeoPackageLayer): FidRange | null {
    const bounds = this.query(`while reading layer "${layer.table}"`, () => this.db.prepare(fidBoundsSql(layer)).get() as { first: number | null; last: number | null });
    return bounds.first === null || bounds.last === null ? null : { first: Number(bounds.first), last: Number(bounds.last) };
  }

  /**
   * The layer's rows as stored: fid, the `columns`' values in that order, the geometry blob
   * undecoded; with `range`, only the rows whose fid lies in it.
   */
  *rows(layer: GeoPackageLayer, columns: string[] = layer.columns, range?: FidRange): Generator<{ position: number; values: unknown[]; blob: unknown }> {
    const unknown = columns.filter((c) => !layer.columns.includes(c));
    if (unknown.length) throw new InputFormatError(`${this.label}: layer "${layer.table}" has no column ${unknown.join(', ')} (columns: ${layer.columns.join(', ')})`);
    const id = quoteIdentifier(layer.idColumn);
    const statement = this.query(`while reading layer "${layer.table}"`, () =>
      this.db.prepare(
        `SELECT ${[layer.idColumn, layer.geometryColumn, ...columns].map(quoteIdentifier).join(', ')} FROM ${quoteIdentifier(layer.table)}` +
          `${range ? ` WHERE ${id} BETWEEN ? AND ?` : ''} ORDER BY ${id}`,
      ).raw(),
    );
    let position: number | null = null;
    try {
      for (const row of statement.iterate(...(range ? [range.first, range.last] : [])) as Iterable<unknown[]>) {
        position = Number(row[0]);
        yield { position, values: row.slice(2), blob: row[1] };
      }
    } catch (error) {
      // A damaged page shows only when the iteration reaches it.
      throw sqliteFailure(error, this.label, `in layer "${layer.table}" ${position === null ? 'at its first row' : `after fid ${position}`}`);
    }
  }

  close(): void {
    this.db.close();
  }
}

/** Fids read per page when only some rows are kept. */
const FID_PAGE = 10_000;

/**
 * The layer's first and last fid, each read from an end of the fid's index. SQLite reads an
 * index's end only for a query with one min() or max(): with both in one SELECT it read every row,
 * synchronously on the worker's thread: 450 ms for the 2 M buildings of a quarter-national Byggnad
 * file on a quiet machine, 0.1 ms now. It fits the 1.3 to 1.8 s stall seen at the start of
 * se-building's stage in a quarter-national refresh (docs/scaling.md).
 */
export function fidBoundsSql(layer: Pick<GeoPackageLayer, 'table' | 'idColumn'>): string {
  const id = quoteIdentifier(layer.idColumn);
  const table = quoteIdentifier(layer.table);
  return `SELECT (SELECT min(${id}) FROM ${table}) AS first, (SELECT max(${id}) FROM ${table}) AS last`;
}

function decode(blob: unknown, layer: GeoPackageLayer): Pick<GeoPackageFeature, 'geometry' | 'header' | 'error'> {
  if (blob === null || blob === undefined) return { geometry: null, header: null, error: 'no geometry (NULL)' };
  if (!Buffer.isBuffer(blob)) return { geometry: null, header: null, error: `geometry column holds ${typeof blob}, not a GeoPackage blob` };
  try {
    const { header, geometry } = readGpkgGeometry(blob);
    if (!geometry) return { geometry: null, header, error: 'empty geometry (the blob header sets the empty flag)' };
    // srs_id 0 and -1 are the spec's "undefined" CRSs; anything else must match the layer.
    if (header.srsId !== layer.srsId && header.srsId > 0) {
      return { geometry: null, header, error: `geometry srs_id ${header.srsId} differs from the layer's ${layer.srsId} (${layer.crs})` };
    }
    return { geometry, header, error: null };
  } catch (error) {
    return { geometry: null, header: null, error: `unreadable geometry blob: ${(error as Error).message}` };
  }
}
