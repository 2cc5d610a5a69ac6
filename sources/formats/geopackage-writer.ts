/**
 * Writes a single-layer GeoPackage with better-sqlite3: the mandatory `gpkg_spatial_ref_sys`,
 * `gpkg_contents` and `gpkg_geometry_columns` tables as GDAL creates them, the GeoPackage
 * application_id and user_version, and a feature table whose geometry blobs come from
 * `gpkg-blob.ts`. Rows go in through transactions of a few thousand, so writing a national
 * layer needs no more memory than one batch. Used by the sample registers and test fixtures;
 * `ogrinfo` reads the result.
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { quoteIdentifier } from './geopackage.js';
import { writeGpkgGeometry } from './gpkg-blob.js';
import type { WkbGeometry } from './wkb.js';

/** Definitions as GDAL writes them (EPSG WKT1), for the CRSs the Swedish registers use. */
const SPATIAL_REF_SYS: Record<number, { name: string; definition: string; description: string | null }> = {
  3006: {
    name: 'SWEREF99 TM',
    definition:
      'PROJCS["SWEREF99 TM",GEOGCS["SWEREF99",DATUM["SWEREF99",SPHEROID["GRS 1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4619"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1],AXIS["Northing",NORTH],AXIS["Easting",EAST],AUTHORITY["EPSG","3006"]]',
    description: null,
  },
  4326: {
    name: 'WGS 84 geodetic',
    definition:
      'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]',
    description: 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid',
  },
  3021: {
    name: 'RT90 2.5 gon V',
    definition:
      'PROJCS["RT90 2.5 gon V",GEOGCS["RT90",DATUM["Rikets_koordinatsystem_1990",SPHEROID["Bessel 1841",6377397.155,299.1528128]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15.80827777777778],PARAMETER["scale_factor",1],PARAMETER["false_easting",1500000],PARAMETER["false_northing",0],UNIT["metre",1],AUTHORITY["EPSG","3021"]]',
    description: null,
  },
};

export type GpkgColumnType = 'TEXT' | 'INTEGER' | 'REAL' | 'BOOLEAN' | 'DATETIME' | 'DATE';

export interface GeoPackageLayerSpec {
  table: string;
  geometryColumn: string;
  /** `POINT`, `POLYGON`, `MULTIPOLYGON`, … */
  geometryType: string;
  srsId: number;
  columns: { name: string; type: GpkgColumnType }[];
  /** Fixed `last_change`, so the same rows give the same bytes. */
  lastChange?: string;
}

type Cell = string | number | boolean | null;

const BATCH = 5000;

export class GeoPackageWriter {
  private readonly insert: Database.Statement;
  private pending: { cells: Cell[]; blob: Buffer | null }[] = [];
  private bbox = [Infinity, Infinity, -Infinity, -Infinity];
  rows = 0;

  private constructor(private readonly db: Database.Database, private readonly spec: GeoPackageLayerSpec) {
    const names = [spec.geometryColumn, ...spec.columns.map((c) => c.name)].map(quoteIdentifier);
    this.insert = db.prepare(`INSERT INTO ${quoteIdentifier(spec.table)} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
  }

  /** Creates (replacing) `filePath` with one empty feature layer. */
  static create(filePath: string, spec: GeoPackageLayerSpec): GeoPackageWriter {
    const srs = SPATIAL_REF_SYS[spec.srsId];
    if (!srs) throw new Error(`no GeoPackage definition for srs_id ${spec.srsId}`);
    rmSync(filePath, { force: true });
    const db = new Database(filePath);
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('application_id = 1196444487'); // 'GPKG'
    db.pragma('user_version = 10200');
    db.exec(`
      CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL,
        organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
      CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
        description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
        min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
        CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
      CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
        srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
        CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name), CONSTRAINT uk_gc_table_name UNIQUE (table_name),
        CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
        CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
    `);
    const addSrs = db.prepare('INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)');
    addSrs.run('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system');
    addSrs.run('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system');
    addSrs.run(srs.name, spec.srsId, 'EPSG', spec.srsId, srs.definition, srs.description);
    const columns = spec.columns.map((c) => `${quoteIdentifier(c.name)} ${c.type}`);
    db.exec(`CREATE TABLE ${quoteIdentifier(spec.table)} ("fid" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, ${quoteIdentifier(spec.geometryColumn)} ${spec.geometryType}${columns.length ? ', ' : ''}${columns.join(', ')})`);
    db.prepare(`INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, srs_id) VALUES (?, 'features', ?, '', ?, ?)`).run(
      spec.table, spec.table, spec.lastChange ?? '2025-01-01T00:00:00.000Z', spec.srsId,
    );
    db.prepare(`INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, ?, 0, 0)`).run(spec.table, spec.geometryColumn, spec.geometryType, spec.srsId);
    return new GeoPackageWriter(db, spec);
  }

  /** One row: attribute values in `columns` order; a geometry, a ready blob (to write a malformed one), or null. */
  add(cells: Cell[], geometry: WkbGeometry | Buffer | null): void {
    let blob: Buffer | null = null;
    if (Buffer.isBuffer(geometry)) blob = geometry;
    else if (geometry) {
      blob = writeGpkgGeometry(this.spec.srsId, geometry);
      this.extend(geometry);
    }
    this.pending.push({ cells: cells.map((cell) => (typeof cell === 'boolean' ? Number(cell) : cell)), blob });
    if (this.pending.length >= BATCH) this.flush();
  }

  private extend(geometry: WkbGeometry): void {
    const visit = (flat: number[]) => {
      for (let i = 0; i < flat.length; i += 2) {
        this.bbox[0] = Math.min(this.bbox[0], flat[i]);
        this.bbox[1] = Math.min(this.bbox[1], flat[i + 1]);
        this.bbox[2] = Math.max(this.bbox[2], flat[i]);
        this.bbox[3] = Math.max(this.bbox[3], flat[i + 1]);
      }
    };
    if ('points' in geometry) visit(geometry.points);
    else if ('lines' in geometry) geometry.lines.forEach(visit);
    else for (const rings of geometry.polygons) rings.forEach(visit);
  }

  private flush(): void {
    const rows = this.pending;
    this.pending = [];
    this.db.transaction(() => {
      for (const row of rows) this.insert.run(row.blob, ...row.cells);
    })();
    this.rows += rows.length;
  }

  /** Writes what is pending, records the layer's extent and closes the file. */
  close(): void {
    this.flush();
    if (Number.isFinite(this.bbox[0])) {
      this.db.prepare(`UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?`).run(...this.bbox, this.spec.table);
    }
    this.db.close();
  }
}
