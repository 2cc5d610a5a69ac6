import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { readBundle } from '../../../sources/formats/bundle.js';
import { readBygningElements } from '../../../sources/formats/bygning-gml.js';
import { readDelimited, readHeaderedRecords } from '../../../sources/formats/delimited.js';
import { readGeoJsonFeatures } from '../../../sources/formats/geojson-features.js';
import { GeoPackage } from '../../../sources/formats/geopackage.js';
import { readGeoPackageLayer } from '../../../sources/formats/geopackage-input.js';
import { GeoPackageWriter } from '../../../sources/formats/geopackage-writer.js';
import { gunzipIfCompressed } from '../../../sources/formats/gzip-input.js';
import { InputFormatError } from '../../../sources/formats/input-error.js';
import { readJsonLines } from '../../../sources/formats/json-lines.js';
import { openInput } from '../../../sources/formats/open-input.js';
import { readTeigFeatures } from '../../../sources/no/cadastre/parse.js';
import { utf8Text } from '../../../sources/formats/text-encoding.js';
import { readUnquotedLines } from '../../../sources/formats/unquoted-csv.js';
import { blankLinesExcept, hashLineRecords } from '../../../sources/formats/line-records.js';
import { hashFeatureRecords } from '../../../sources/formats/gml-feature-records.js';
import { expectInputFormatError, failure } from './input-failure.js';

/**
 * Every reader in sources/formats fails bad input with an InputFormatError itself (the class
 * the ingest workflow does not retry), naming what is wrong and where; and a damaged zip entry
 * is reported as the damage, whatever the reader saw first.
 */

const FIXTURES = fileURLToPath(new URL('../../fixtures/no/', import.meta.url));
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-input-errors-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** The bytes of `text` as a stream in chunks of `size` bytes, as a file is read. */
function bytes(text: string | Buffer, size = 1 << 16): Readable {
  const buffer = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) chunks.push(buffer.subarray(i, i + size));
  return Readable.from(chunks.length ? chunks : [buffer]);
}

/** A document with its start tag broken in the middle of the file: `<app:Teig gml:id=…` loses its `>`, and a `<` follows. */
function breakTagMidFile(document: string, tag: string): string {
  const starts = [...document.matchAll(new RegExp(`<(\\w+:)?${tag}[ >]`, 'g'))].map((m) => m.index!);
  expect(starts.length).toBeGreaterThan(1);
  const at = starts[Math.floor(starts.length / 2)];
  const close = document.indexOf('>', at);
  return `${document.slice(0, close)} broken="<"${document.slice(close + 1)}`;
}

describe('GML readers', () => {
  const teig = readFileSync(`${FIXTURES}teig/oslo-25833.gml`, 'utf8');
  const bygning = readFileSync(`${FIXTURES}building/oslo-25833.gml`, 'utf8');

  it('Teig: a tag broken mid-file is an InputFormatError with the line and column', async () => {
    const error = await failure(() => drain(readTeigFeatures(bytes(breakTagMidFile(teig, 'Teig')))));
    expectInputFormatError(error, /^Malformed or truncated GML at line \d+, column \d+: /);
  });

  it('Teig: an empty file, a truncated file and a Latin-1 file are InputFormatErrors', async () => {
    expectInputFormatError(await failure(() => drain(readTeigFeatures(bytes('')))), /^Malformed or truncated GML at line 1, column 0: document must contain a root element/);
    expectInputFormatError(await failure(() => drain(readTeigFeatures(bytes(teig.slice(0, Math.floor(teig.length * 0.6)))))), /^Malformed or truncated GML at line \d+/);
    expectInputFormatError(await failure(() => drain(readTeigFeatures(bytes(Buffer.from(teig, 'latin1'))))), /^Teig GML is not valid UTF-8 near byte \d+ \(it looks like a single-byte encoding such as ISO-8859-1\/Latin-1\); re-encode the file as UTF-8$/);
  });

  it('Bygning: a tag broken mid-file, an empty file and a truncated file are InputFormatErrors', async () => {
    expectInputFormatError(await failure(() => drain(readBygningElements(bytes(breakTagMidFile(bygning, 'Bygning'))))), /^Malformed or truncated building GML at line \d+, column \d+: /);
    expectInputFormatError(await failure(() => drain(readBygningElements(bytes('')))), /document must contain a root element/);
    expectInputFormatError(await failure(() => drain(readBygningElements(bytes(bygning.slice(0, Math.floor(bygning.length * 0.6)))))), /^(Malformed or truncated building GML|building GML ends inside)/);
  });
});

describe('JSON readers', () => {
  it('GeoJSON: broken, truncated, empty and non-JSON files are InputFormatErrors with the position', async () => {
    const collection = readFileSync(`${FIXTURES}area/grunnkretser-oslo-25833.geojson`, 'utf8');
    const broken = collection.replace(/"properties"\s*:/g, (m, offset: number) => (offset > collection.length / 2 ? '"properties" ' : m));
    expectInputFormatError(await failure(() => drain(readGeoJsonFeatures(bytes(broken, 256), 'broken.geojson'))), /^broken\.geojson is not valid JSON \(truncated or corrupt\?\) after feature \d+: /);
    expectInputFormatError(await failure(() => drain(readGeoJsonFeatures(bytes(collection.slice(0, collection.length - 40), 256), 'cut.geojson'))), /^cut\.geojson is not valid JSON .* after feature \d+: /);
    expectInputFormatError(await failure(() => drain(readGeoJsonFeatures(bytes(''), 'empty.geojson'))), /^empty\.geojson is not valid JSON \(truncated or corrupt\?\) before its first feature: /);
    expectInputFormatError(await failure(() => drain(readGeoJsonFeatures(bytes('<html>oops</html>'), 'page.geojson'))), /^page\.geojson is not valid JSON/);
  });

  it('JSON Lines: a file in the wrong encoding is an InputFormatError; a bad line is a reject, not a failure', async () => {
    const latin1 = Buffer.from('{"a": "Bærum"}\n', 'latin1');
    const options = { feed: 'no-certification', label: 'certs.jsonl', toRow: () => [] };
    expectInputFormatError(await failure(() => drain(readJsonLines(bytes(latin1), options))), /^certs\.jsonl is not valid UTF-8 near byte 8 \(is it Latin-1/);
    const [batch] = await drain(readJsonLines(bytes('{"broken": \n'), options));
    expect(batch).toEqual([expect.objectContaining({ kind: 'reject', position: 1, reason: expect.stringMatching(/^not valid JSON: /) })]);
  });
});

describe('delimited readers', () => {
  const headered = (text: AsyncIterable<string>, label: string) =>
    readHeaderedRecords(text, {
      delimiter: ';', quote: '"', label, expected: 'a;b', required: ['a', 'b'] as const, optional: [] as const,
      toRow: (field) => [field('a') ?? null], isRowProblem: (e): e is Error => false,
    });

  it('an empty file, a wrong header and a Latin-1 file are InputFormatErrors', async () => {
    expectInputFormatError(await failure(() => drain(headered(utf8Text(bytes(''), 'empty.csv'), 'empty.csv'))), /^empty\.csv is empty: no header line/);
    expectInputFormatError(await failure(() => drain(headered(utf8Text(bytes('x;y\n1;2\n'), 'other.csv'), 'other.csv'))), /^other\.csv: unknown header, missing column\(s\) a, b/);
    const latin1 = Buffer.from('a;b\nBærum;1\n', 'latin1');
    expectInputFormatError(await failure(() => drain(readDelimited(utf8Text(bytes(latin1), 'latin1.csv'), { delimiter: ';', quote: '"' }))), /^latin1\.csv is not valid UTF-8 near byte 5 \(is it Latin-1/);
    expectInputFormatError(await failure(() => drain(readUnquotedLines(bytes(latin1), { delimiter: ';', label: 'plain.csv' }))), /^plain\.csv is not valid UTF-8 near byte 5 \(is it Latin-1/);
  });

  it('a broken quote is a reject of its line, not a failure', async () => {
    const [batch] = await drain(headered(utf8Text(bytes('a;b\n"x;y\n'), 'quote.csv'), 'quote.csv'));
    expect(batch).toEqual([expect.objectContaining({ kind: 'reject', position: 2, reason: expect.stringMatching(/Quote Not Closed/) })]);
  });
});

describe('a record that never ends', () => {
  // Past the 64 MiB a reader holds of one record (sources/formats/record-size.ts). Each input
  // repeats one 64 KiB chunk, as a file is read, so no test holds the file in memory.
  const RUN_ON_BYTES = 70 * 1024 * 1024;
  function runningOn(head: string, repeated: string, tail = '', bytes = RUN_ON_BYTES): Readable {
    const chunk = Buffer.from(repeated.repeat(Math.ceil((1 << 16) / repeated.length)));
    return Readable.from((function* () {
      yield Buffer.from(head);
      for (let sent = 0; sent < bytes; sent += chunk.length) yield chunk;
      yield Buffer.from(tail);
    })());
  }
  // A register re-saved with classic Mac line endings: every line ends in CR alone.
  const crOnly = () => runningOn('lokalid;adressenavn\r', '1;Storgata\r', '2;Kirkeveien\n');

  it('lines that end in CR alone are an InputFormatError of the line parser, the line hashes and the night\'s filter', async () => {
    const message = /^cr\.csv: a record runs on past 64 MiB without ending, at line 1: not a file of lines as this source reads them \(lines ending in CR alone/;
    expectInputFormatError(await failure(() => drain(readUnquotedLines(crOnly(), { delimiter: ';', label: 'cr.csv' }))), message);
    expectInputFormatError(await failure(() => drain(hashLineRecords(crOnly(), { header: true, label: 'cr.csv' }))), message);
    expectInputFormatError(await failure(() => drain(blankLinesExcept(crOnly(), { header: true, keep: () => true, label: 'cr.csv' }))), message);
  });

  it('a quote never closed is an InputFormatError of the CSV reader once its field passes the limit', async () => {
    const text = utf8Text(runningOn('a;b\n1;2\n"3;4\n', 'x'), 'quote.csv');
    expectInputFormatError(await failure(() => drain(readDelimited(text, { delimiter: ';', quote: '"', label: 'quote.csv' }))), /^quote\.csv: a record runs on past 64 MiB without ending, at line \d+: .*a quote never closed/);
  });

  it('a GML comment never closed is an InputFormatError of the feature hashing, and a long one that closes is read', async () => {
    const unclosed = runningOn('<c><f>1</f><f><!--', 'a'.repeat(1024));
    expectInputFormatError(await failure(() => drain(hashFeatureRecords(unclosed, { element: 'f' }, { regular: true }))), /^GML markup \(a tag, comment or CDATA section\) runs on past 64 MiB without ending/);
    const layout = { regular: true };
    // 40 MiB over 640 chunks: long, but within the 64 MiB a feature may hold (a longer one is refused, gml-feature-records.test.ts).
    const closed = (await drain(hashFeatureRecords(runningOn('<c><f>1</f><f><!--', 'a'.repeat(1024), '--></f><f>3</f></c>', 40 * 1024 * 1024), { element: 'f' }, layout))).flat();
    expect(closed.map((feature) => feature.number)).toEqual([1, 2, 3]);
    expect(layout.regular).toBe(true);
  });
});

describe('compressed and bundled input', () => {
  const gz = gzipSync(Buffer.from('{"organisasjonsnummer": "923609016"}\n'.repeat(2000)));
  const gunzipped = async (data: Buffer, label: string) => Buffer.concat(await drain(await gunzipIfCompressed(bytes(data), label)));

  it('a truncated gzip and a damaged gzip header are InputFormatErrors', async () => {
    expectInputFormatError(await failure(() => gunzipped(gz.subarray(0, gz.length - 30), 'cut.json.gz')), /^cut\.json\.gz is a truncated or corrupt gzip file after \d+ compressed bytes: unexpected end of file/);
    const header = Buffer.from(gz);
    header[2] = 7; // compression method: not deflate
    expectInputFormatError(await failure(() => gunzipped(header, 'method.json.gz')), /^method\.json\.gz is a truncated or corrupt gzip file .*: unknown compression method/);
    expect((await gunzipped(gz, 'whole.json.gz')).length).toBe(2000 * 37);
  });

  async function tarOf(members: { name: string; content: Buffer }[]): Promise<Buffer> {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    const collected = (async () => {
      for await (const chunk of pack) chunks.push(chunk as Buffer);
    })();
    for (const member of members) {
      await new Promise<void>((resolve, reject) => pack.entry({ name: member.name, size: member.content.length }, member.content, (error) => (error ? reject(error) : resolve())));
    }
    pack.finalize();
    await collected;
    return Buffer.concat(chunks);
  }

  async function readMembers(data: Buffer, fileName: string): Promise<string[]> {
    const names: string[] = [];
    for await (const member of readBundle(bytes(data), fileName, { dataFile: /\.txt$/ })) {
      names.push(member.name);
      for await (const chunk of member.stream) void chunk;
    }
    return names;
  }

  it('a truncated tar and a truncated tar.gz are InputFormatErrors', async () => {
    const bundle = await tarOf([{ name: 'a.txt', content: Buffer.alloc(5000, 'a') }, { name: 'b.txt', content: Buffer.alloc(5000, 'b') }]);
    expect(await readMembers(bundle, 'ok.tar')).toEqual(['a.txt', 'b.txt']);
    expectInputFormatError(await failure(() => readMembers(bundle.subarray(0, 7000), 'cut.tar')), /^cut\.tar is not a readable tar bundle \(truncated or corrupt\?\) in member 2 \(b\.txt\): Unexpected end of data/);
    const tgz = gzipSync(bundle);
    expectInputFormatError(await failure(() => readMembers(tgz.subarray(0, tgz.length - 20), 'cut.tar.gz')), /^cut\.tar\.gz is not a readable tar bundle .*: unexpected end of file/);
  });

  it('a zip member of a tar is checked against its CRC-32 like a downloaded zip', async () => {
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('5560000001;Bolag AB;1000\n'.repeat(300)), 'scb_bulkfil_1.txt', { compress: false });
    zip.end();
    const zipped = Buffer.concat(await drain(zip.outputStream as AsyncIterable<Buffer>));
    const damaged = Buffer.from(zipped);
    const at = damaged.indexOf('5560000001;Bolag AB;1000', 2000);
    damaged[at + 3] = '9'.charCodeAt(0); // a digit changed: same length, same encoding
    expect(await readMembers(await tarOf([{ name: 'scb.zip', content: zipped }]), 'good.tar')).toEqual(['scb_bulkfil_1.txt']);
    const damagedTar = await tarOf([{ name: 'scb.zip', content: damaged }]);
    const error = await failure(() => readMembers(damagedTar, 'damaged.tar'));
    expectInputFormatError(error, /^scb\.zip: entry scb_bulkfil_1\.txt is corrupt: CRC-32 of the data is 0x[0-9a-f]{8}, the zip declares 0x[0-9a-f]{8}$/);
  });
});

describe('GeoPackage reader', () => {
  const square = (x: number, y: number) => [x, y, x + 5, y, x + 5, y + 5, x, y + 5, x, y];

  function writeGpkg(name: string, rows: number): string {
    const file = path.join(dir, name);
    const writer = GeoPackageWriter.create(file, { table: 'byggnad', geometryColumn: 'geom', geometryType: 'MULTIPOLYGON', srsId: 3006, columns: [{ name: 'objektidentitet', type: 'TEXT' }] });
    for (let i = 0; i < rows; i++) writer.add([`id-${i}`], { type: 'MultiPolygon', polygons: [[square(650000 + i * 10, 6580000)]] });
    writer.close();
    return file;
  }

  it('a file that is not a GeoPackage, an empty file and an SQLite header over garbage are InputFormatErrors', async () => {
    await writeFile(path.join(dir, 'text.gpkg'), 'objektidentitet;geom\n');
    await writeFile(path.join(dir, 'empty.gpkg'), '');
    await writeFile(path.join(dir, 'garbage.gpkg'), Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4000, 7)]));
    expectInputFormatError(await failure(() => GeoPackage.open(path.join(dir, 'text.gpkg'))), /^text\.gpkg is not a GeoPackage: it is not an SQLite database file/);
    expectInputFormatError(await failure(() => GeoPackage.open(path.join(dir, 'empty.gpkg'))), /^empty\.gpkg is not a GeoPackage/);
    expectInputFormatError(await failure(() => GeoPackage.open(path.join(dir, 'garbage.gpkg'))), /^garbage\.gpkg is not a readable SQLite database: file is not a database/);
  });

  it('a page damaged mid-file fails the read as an InputFormatError naming the layer and the last row read', async () => {
    const file = writeGpkg('damaged-page.gpkg', 3000);
    const db = new Database(file, { readonly: true });
    const leaves = db.prepare(`SELECT pageno FROM dbstat WHERE name = 'byggnad' AND pagetype = 'leaf' ORDER BY pageno`).pluck().all() as number[];
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const content = await readFile(file);
    const page = leaves[Math.floor(leaves.length / 2)];
    content.fill(0xee, (page - 1) * pageSize, page * pageSize);
    await writeFile(file, content);
    const gpkg = GeoPackage.open(file);
    try {
      const layer = gpkg.layer('byggnad', 3006);
      let read = 0;
      const error = await failure(() => {
        for (const feature of gpkg.features(layer)) read += feature.error === null ? 1 : 0;
      });
      expectInputFormatError(error, /^damaged-page\.gpkg is not a readable SQLite database \(truncated or corrupt\?\) in layer "byggnad" after fid \d+: database disk image is malformed/);
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(3000);
    } finally {
      gpkg.close();
    }
  });

  it('a zipped GeoPackage whose entry is damaged is reported as a corrupt entry, not as whatever SQLite makes of it', async () => {
    const gpkg = await readFile(writeGpkg('zipped.gpkg', 500));
    const zip = new yazl.ZipFile();
    zip.addBuffer(gpkg, 'byggnad.gpkg', { compress: false });
    zip.end();
    const file = path.join(dir, 'byggnad.zip');
    await pipeline(zip.outputStream, createWriteStream(file));
    const zipped = await readFile(file);
    const data = zipped.indexOf(Buffer.from('SQLite format 3\0', 'latin1'));
    zipped.fill(0xee, data + 4096 * 3, data + 4096 * 3 + 64); // inside a page: SQLite would open the file
    await writeFile(file, zipped);
    const input = await openInput(file, /\.gpkg$/);
    const read = () => drain(readGeoPackageLayer(input.stream, { fileName: input.fileName }, { layer: 'byggnad', srid: 3006, columns: ['objektidentitet'] }, (f) => ({ kind: 'row', position: f.position, values: [] })));
    expectInputFormatError(await failure(read), /^byggnad\.zip: entry byggnad\.gpkg is corrupt: CRC-32/);
  });
});

describe('InputFormatError', () => {
  it('is the class itself wherever it is thrown: Temporal types the failure by the constructor name', () => {
    expectInputFormatError(new InputFormatError('x'), /^x$/);
  });
});
