import { hash } from 'node:crypto';
import { GeoPackage, type FidRange } from './geopackage.js';

/**
 * The hash of each row of a GeoPackage layer as stored (the columns read and the geometry blob,
 * not decoded), for a range of its feature ids: the part of a night's hash pass one thread does
 * (geopackage-records.ts runs two, geopackage-hash-thread.ts is the second).
 */

/** What a thread needs to hash its part: plain data, so that it can be posted to a worker thread. */
export interface RowHashRequest {
  path: string;
  /** The file's name in errors. */
  label: string;
  layer: string;
  srid: number;
  /** The columns hashed, in this order (plannedLayer's). */
  columns: string[];
  /** The column whose raw value is reported with each row (a record group's). */
  groupColumn?: string;
  range: FidRange;
  batchSize: number;
}

/** Rows hashed, in fid order: their fids, hashes, and the raw values of the group column when one is asked for. */
export interface RowHashBatch {
  numbers: number[];
  hashes: string[];
  groups?: unknown[];
}

/** Text that identifies a value's type and content (a number 1 and a text '1' differ). */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return '\u0000';
  if (Buffer.isBuffer(value)) return `b${value.toString('base64')}`;
  return `${typeof value === 'number' ? 'n' : typeof value === 'bigint' ? 'i' : 's'}${String(value)}`;
}

/**
 * The first 128 bits of SHA-1, in hex, over the column names, the values and the blob: the
 * header line, the values' texts joined by U+001F, a newline, the blob's bytes. Written into one
 * buffer kept across rows (`RowHasher`), not concatenated anew for each row.
 */
class RowHasher {
  private buffer: Buffer;
  private readonly headerLength: number;

  constructor(private readonly header: Buffer) {
    this.buffer = Buffer.allocUnsafe(Math.max(1 << 16, header.length * 2));
    this.headerLength = header.copy(this.buffer, 0);
  }

  hash(values: unknown[], blob: unknown): string {
    let text = '';
    for (let i = 0; i < values.length; i++) text += (i ? '\u001f' : '') + valueText(values[i]);
    text += '\n';
    const bytes = Buffer.isBuffer(blob) ? blob : Buffer.from(valueText(blob));
    const length = this.headerLength + Buffer.byteLength(text) + bytes.length;
    if (length > this.buffer.length) {
      this.buffer = Buffer.allocUnsafe(length * 2);
      this.header.copy(this.buffer, 0);
    }
    let end = this.headerLength + this.buffer.write(text, this.headerLength);
    end += bytes.copy(this.buffer, end);
    return hash('sha1', this.buffer.subarray(0, end), 'hex').slice(0, 32);
  }
}

/** Hashes the rows of `request.range`, a batch at a time. The file's own errors are InputFormatErrors. */
export function* hashRowRange(request: RowHashRequest): Generator<RowHashBatch> {
  const gpkg = GeoPackage.open(request.path, request.label);
  try {
    const layer = gpkg.layer(request.layer, request.srid);
    const hasher = new RowHasher(Buffer.from(`${request.columns.join('\u001f')}\n`));
    const groupIndex = request.groupColumn === undefined ? -1 : request.columns.indexOf(request.groupColumn);
    const empty = (): RowHashBatch => ({ numbers: [], hashes: [], ...(groupIndex >= 0 ? { groups: [] } : {}) });
    let batch = empty();
    for (const row of gpkg.rows(layer, request.columns, request.range)) {
      batch.numbers.push(row.position);
      batch.hashes.push(hasher.hash(row.values, row.blob));
      batch.groups?.push(row.values[groupIndex]);
      if (batch.numbers.length >= request.batchSize) {
        yield batch;
        batch = empty();
      }
    }
    if (batch.numbers.length) yield batch;
  } finally {
    gpkg.close();
  }
}
