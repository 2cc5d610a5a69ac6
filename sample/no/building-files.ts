/**
 * The sample files of the building registers: Matrikkelen Bygning GML (no-building) and the
 * matrikkel-detail JSON Lines exchange file (no-matrikkel-detail). Both are written from
 * sampleBuildingsOf over the plan's parcels (with their addresses, which the units use),
 * streamed with backpressure so memory stays flat at any size.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { noBuilding } from '../../sources/no/building/adapter.js';
import { noMatrikkelDetail } from '../../sources/no/matrikkel-detail/adapter.js';
import { parcelsOfPlan } from '../parcels.js';
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { writeZip } from '../zip-writer.js';
import { detailRecordsOf } from './building-details.js';
import { BYGNING_GML_ENTRY, bygningGmlPieces } from './write-bygning-gml.js';
import { pacedReadable } from '../index-window.js';

async function writeBygningGml(context: SampleWriteContext): Promise<{ rows: number }> {
  const stats = { rows: 0 };
  await writeZip(context.path, [{ name: BYGNING_GML_ENTRY, pieces: () => bygningGmlPieces(parcelsOfPlan(context.plan), context.plan.seedHash, stats) }], { compressionLevel: context.compressionLevel });
  return stats;
}

function* detailLines(context: SampleWriteContext, stats: { rows: number }): Generator<string> {
  let pending = '';
  for (const parcel of parcelsOfPlan(context.plan)) {
    for (const record of detailRecordsOf(parcel, context.plan.seedHash)) {
      pending += `${JSON.stringify(record)}\n`;
      stats.rows += 1;
    }
    if (pending.length >= 1 << 16) {
      yield pending;
      pending = '';
    }
  }
  if (pending) yield pending;
}

async function writeMatrikkelDetail(context: SampleWriteContext): Promise<{ rows: number }> {
  const stats = { rows: 0 };
  await pipeline(pacedReadable(detailLines(context, stats)), createWriteStream(context.path));
  return stats;
}

export const BUILDING_SAMPLE_FILES: SampleRegisterFile[] = [
  { sourceId: noBuilding.id, country: 'NO', fileName: noBuilding.inputFileName, write: writeBygningGml },
  { sourceId: noMatrikkelDetail.id, country: 'NO', fileName: noMatrikkelDetail.inputFileName, write: writeMatrikkelDetail },
];
