import { hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ParseContext, RecordGroup } from '../source-adapter.js';
import { GeoPackage } from './geopackage.js';
import { geoPackageFile, plannedLayer, type GeoPackageFile, type LayerSpec } from './geopackage-input.js';
import type { HashedLine, RecordLayout } from './line-records.js';

/**
 * Row hashes of a register GeoPackage (SourceAdapter.geoPackageRecords): the night's stage
 * hashes each row of the layer as stored (the columns the adapter reads and the geometry blob,
 * not decoded), then parses only the rows whose hash the last publish did not have
 * (activities/record-hashes.ts). A row's number is its fid, which the reader gives as its position.
 */

/** `regular` is cleared when the fids are below 1 or too sparse for a bit per fid (the set of changed rows is kept so). */
export type RowLayout = RecordLayout;

/** fids up to this many times the row count (plus a margin) are dense enough for a bit set. */
const MAX_FID_SPREAD = 4;
const FID_MARGIN = 1_000_000;

/** Text that identifies a value's type and content (a number 1 and a text '1' differ). */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return '\u0000';
  if (Buffer.isBuffer(value)) return `b${value.toString('base64')}`;
  return `${typeof value === 'number' ? 'n' : typeof value === 'bigint' ? 'i' : 's'}${String(value)}`;
}

/**
 * Hashes every row of the layer `spec` names (the first 128 bits of SHA-1 over the columns'
 * names, the values and the geometry blob), a batch of rows at a time, with the row's group
 * where `spec` names one. `layout.regular` is final once the iteration ends.
 *
 * A zipped GeoPackage is extracted to be read. With `keepFile`, an iteration that ends hands
 * the extracted file to it (the caller parses from it and removes it) instead of removing it:
 * extracting it again for the parse cost as much as the hashing (docs/scaling.md).
 */
export async function* hashGeoPackageRows(
  input: Readable,
  context: ParseContext,
  spec: LayerSpec & { group?: RecordGroup },
  layout: RowLayout,
  options: { batchSize?: number; keepFile?: (file: GeoPackageFile) => void } = {},
): AsyncGenerator<HashedLine[]> {
  const { batchSize = 5000, keepFile } = options;
  const file = await geoPackageFile(input, context);
  let handedOver = false;
  try {
    const gpkg = GeoPackage.open(file.path, context.fileName);
    try {
      const { layer, columns } = plannedLayer(gpkg, spec);
      const header = `${columns.join('\u001f')}\n`;
      const groupIndex = spec.group ? columns.indexOf(spec.group.column) : -1;
      if (spec.group && groupIndex < 0) throw new Error(`record group column ${spec.group.column} is not among the columns read from ${spec.layer}`);
      const newline = Buffer.from('\n');
      let rows = 0;
      let lastFid = 0;
      let firstFid = Infinity;
      let batch: HashedLine[] = [];
      for (const row of gpkg.rows(layer, columns)) {
        const text = header + row.values.map(valueText).join('\u001f');
        const blob = Buffer.isBuffer(row.blob) ? row.blob : Buffer.from(valueText(row.blob));
        const record: HashedLine = { number: row.position, hash: hash('sha1', Buffer.concat([Buffer.from(text), newline, blob]), 'hex').slice(0, 32) };
        if (spec.group) record.group = spec.group.value(row.values[groupIndex]);
        batch.push(record);
        rows++;
        lastFid = row.position;
        firstFid = Math.min(firstFid, row.position);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
      if (firstFid < 1 || lastFid > rows * MAX_FID_SPREAD + FID_MARGIN) layout.regular = false;
    } finally {
      gpkg.close();
    }
    if (keepFile) {
      keepFile(file);
      handedOver = true;
    }
  } finally {
    if (!handedOver) await file.cleanup();
  }
}
