import { readFile } from 'node:fs/promises';
import { ADDRESS_CSV_HEADER } from '../../../sample/write-address-csv.js';
import { addressCsv, ADDRESS_FILE, teigGml, TEIG_FILE, writeInput, zipOf } from './snapshots.js';
import { TEIG_FEATURES, type FaultStack } from './stack.js';

/**
 * The damaged inputs of the bad-file tests, each derived from snapshot B (or the Teig GML) and
 * written into a folder of its own under its national file name.
 */
export interface BadFile {
  /** Short, for its scenario's database and folder. */
  id: string;
  name: string;
  sourceId: string;
  /** Writes the file; returns its path. */
  write(stack: FaultStack): Promise<string>;
  /** What source_run.error must say. */
  error: RegExp;
  /** The activity that must fail, in its first attempt. */
  activity: string;
}

const csvOfB = (stack: FaultStack) => addressCsv(stack.inputs.snapshots.b);
/** Offset of the first (only) entry's data in a zip yazl wrote: after the 30-byte local header, its name and extra field. */
const entryData = (zip: Buffer) => 30 + zip.readUInt16LE(26) + zip.readUInt16LE(28);

export const BAD_FILES: BadFile[] = [
  {
    id: 'truncated',
    name: 'a truncated zip',
    sourceId: 'no-address',
    write: async (stack) => {
      const zip = await readFile(stack.inputs.b);
      return writeInput(stack.dir, 'truncated', `${ADDRESS_FILE}.zip`, zip.subarray(0, Math.floor(zip.length * 0.6)));
    },
    error: /not a readable zip archive \(truncated or corrupt\?\)/,
    activity: 'stageArtifact',
  },
  {
    id: 'crc',
    name: 'a STORED zip entry with digits changed (wrong CRC-32)',
    sourceId: 'no-address',
    write: async (stack) => {
      const zip = await zipOf(`${ADDRESS_FILE}.csv`, Buffer.from(csvOfB(stack)), false);
      // Change the first digits from the middle of the entry on: every row still parses.
      let changed = 0;
      for (let i = entryData(zip) + Math.floor((zip.length - entryData(zip)) / 2); changed < 3; i++) {
        if (zip[i] >= 0x30 && zip[i] <= 0x38) {
          zip[i] += 1;
          changed++;
        }
      }
      return writeInput(stack.dir, 'crc', `${ADDRESS_FILE}.zip`, zip);
    },
    error: /entry .*\.csv is corrupt: CRC-32 of the data is 0x[0-9a-f]{8}, the zip declares 0x[0-9a-f]{8}/,
    activity: 'stageArtifact',
  },
  {
    id: 'deflate',
    name: 'a corrupt deflated zip entry',
    sourceId: 'no-address',
    write: async (stack) => {
      const zip = Buffer.from(await readFile(stack.inputs.b));
      const middle = entryData(zip) + Math.floor((zip.length - entryData(zip)) / 2);
      for (let i = middle; i < middle + 64; i++) zip[i] ^= 0x5a;
      return writeInput(stack.dir, 'deflate', `${ADDRESS_FILE}.zip`, zip);
    },
    error: /entry .*\.csv is corrupt/,
    activity: 'stageArtifact',
  },
  {
    id: 'latin1',
    name: 'Latin-1 where UTF-8 is expected',
    sourceId: 'no-address',
    write: (stack) => writeInput(stack.dir, 'latin1', `${ADDRESS_FILE}.csv`, Buffer.from(csvOfB(stack), 'latin1')),
    error: /is not valid UTF-8 near byte \d+ \(is it Latin-1 or Windows-1252\?\)/,
    activity: 'stageArtifact',
  },
  {
    id: 'header',
    name: 'a changed header',
    sourceId: 'no-address',
    write: (stack) =>
      writeInput(stack.dir, 'header', `${ADDRESS_FILE}.csv`, addressCsv(stack.inputs.snapshots.b, ADDRESS_CSV_HEADER.replace(';EPSG-kode;', ';EPSG;'))),
    error: /unknown header: missing column\(s\) epsg-kode/,
    activity: 'stageArtifact',
  },
  {
    id: 'gml',
    name: 'a GML with a broken tag mid-file',
    sourceId: 'no-cadastre',
    write: async (stack) => writeInput(stack.dir, 'broken-gml', TEIG_FILE, await teigGml(TEIG_FEATURES, Math.floor(TEIG_FEATURES * 0.6))),
    error: /Malformed or truncated GML at line \d+, column \d+/,
    activity: 'stageArtifact',
  },
  {
    id: 'empty',
    name: 'an empty file',
    sourceId: 'no-address',
    write: (stack) => writeInput(stack.dir, 'empty', `${ADDRESS_FILE}.csv`, ''),
    error: /is empty/,
    activity: 'stageArtifact',
  },
  {
    id: 'dropped',
    name: '30 % of the rows removed (without force)',
    sourceId: 'no-address',
    write: (stack) => writeDropped(stack, 'dropped'),
    error: /snapshot has \d+ rows against \d+ live \(30\.\d% fewer, over the 10% limit\); rerun with --force if the drop is real/,
    activity: 'validateStaged',
  },
];

/** A with every row whose index ends in 0, 1 or 2 removed: 30 % fewer rows, nothing else changed. */
export async function writeDropped(stack: FaultStack, label: string): Promise<string> {
  const kept = stack.inputs.snapshots.a.filter((_, i) => i % 10 >= 3);
  return writeInput(stack.dir, label, `${ADDRESS_FILE}.zip`, await zipOf(`${ADDRESS_FILE}.csv`, Buffer.from(addressCsv(kept)), true));
}
