import type { Readable } from 'node:stream';
import type { ParseContext, RecordGroup } from '../source-adapter.js';
import { GeoPackage, type FidRange } from './geopackage.js';
import { HashThread } from './geopackage-hash-worker.js';
import { hashRowRange, type RowHashBatch, type RowHashRequest } from './geopackage-row-hashes.js';
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
  options: { batchSize?: number; keepFile?: (file: GeoPackageFile) => void; threadFrom?: number } = {},
): AsyncGenerator<HashedLine[]> {
  // A batch is hashed synchronously, and the worker's event loop turns between batches: 1,000 rows
  // hold it for about 4 ms (p50; 5,000 rows 20 ms and up to 1.4 s on a loaded machine), and the
  // pass over 2 M buildings took no longer (9.1 to 9.4 s against 9.5 to 10.6 s).
  const { batchSize = 1000, keepFile, threadFrom = THREAD_FROM_ROWS } = options;
  const file = await geoPackageFile(input, context);
  let handedOver = false;
  let thread: HashThread | undefined;
  try {
    const gpkg = GeoPackage.open(file.path, context.fileName);
    let bounds: FidRange | null;
    let columns: string[];
    try {
      const planned = plannedLayer(gpkg, spec);
      columns = planned.columns;
      bounds = gpkg.fidBounds(planned.layer);
    } finally {
      gpkg.close();
    }
    if (spec.group && !columns.includes(spec.group.column)) throw new Error(`record group column ${spec.group.column} is not among the columns read from ${spec.layer}`);
    const request = (range: FidRange): RowHashRequest => ({ path: file.path, label: context.fileName, layer: spec.layer, srid: spec.srid, columns, groupColumn: spec.group?.column, range, batchSize });
    const lines = (batch: RowHashBatch): HashedLine[] =>
      batch.numbers.map((number, i) => (spec.group ? { number, hash: batch.hashes[i], group: spec.group.value(batch.groups![i]) } : { number, hash: batch.hashes[i] }));
    let rows = 0;
    if (bounds) {
      // The upper half of the fids in a thread of its own, beside this one: a night's stage is
      // mostly this pass, and the database waits meanwhile, so the second core was idle.
      const split = bounds.last - bounds.first + 1 >= threadFrom ? Math.floor((bounds.first + bounds.last) / 2) : bounds.last;
      if (split < bounds.last) thread = HashThread.start(request({ first: split + 1, last: bounds.last }));
      for (const batch of hashRowRange(request({ first: bounds.first, last: split }))) {
        rows += batch.numbers.length;
        yield lines(batch);
        for (const theirs of thread?.take() ?? []) {
          rows += theirs.numbers.length;
          yield lines(theirs);
        }
      }
      for (let theirs = await thread?.next(); theirs?.length; theirs = await thread!.next()) {
        for (const batch of theirs) {
          rows += batch.numbers.length;
          yield lines(batch);
        }
      }
    }
    if (bounds && (bounds.first < 1 || bounds.last > rows * MAX_FID_SPREAD + FID_MARGIN)) layout.regular = false;
    if (keepFile) {
      keepFile(file);
      handedOver = true;
    }
  } finally {
    await thread?.stop();
    if (!handedOver) await file.cleanup();
  }
}

/** Layers spanning fewer fids are hashed in one thread: starting a second costs more than it saves. */
const THREAD_FROM_ROWS = 20_000;
