import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { ZipFile } from 'yazl';
import { PROJECT_ROOT } from '../../../lib/config.js';
import { ADDRESS_CSV_HEADER } from '../../../sample/write-address-csv.js';

/**
 * The registers the fault suite loads: a national Matrikkelen Adresse CSV (the 46-column
 * layout, as sample/write-address-csv.ts writes it) as snapshot A, and snapshot B that really
 * changes it (updated rows, new rows, a few per cent deleted: under the 10 % drop guard); a
 * Teig GML for no-cadastre; and the damaged files of the bad-input tests, all derived from
 * these. Deterministic for a seed.
 */

export const ADDRESS_FILE = 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV';
export const TEIG_FILE = 'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.gml';

interface AddressRow {
  id: number;
  kommune: string;
  kommunenavn: string;
  gnr: number;
  bnr: number;
  streetCode: number;
  street: string;
  number: number;
  letter: string;
  north: number;
  east: number;
  postnr: string;
  poststed: string;
  updated: string;
}

const MUNICIPALITIES = [
  ['0301', 'OSLO', 'OSLO'],
  ['3201', 'BÆRUM', 'SANDVIKA'],
  ['4601', 'BERGEN', 'BERGEN'],
  ['5001', 'TRONDHEIM', 'TRONDHEIM'],
  ['1103', 'STAVANGER', 'STAVANGER'],
  ['4204', 'KRISTIANSAND', 'KRISTIANSAND S'],
] as const;
// Norwegian letters in most rows: a Latin-1 copy of the file differs all through, not only in the header.
const STREETS = ['Storgata', 'Kirkeveien', 'Bjørnstjerne Bjørnsons gate', 'Åsveien', 'Ærfuglveien', 'Østre gate', 'Møllergata', 'Sjøgata', 'Håkons gate', 'Tærudveien'];

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function makeRow(random: () => number, id: number, version: number): AddressRow {
  const [kommune, kommunenavn, poststed] = MUNICIPALITIES[Math.floor(random() * MUNICIPALITIES.length)];
  const streetIndex = Math.floor(random() * STREETS.length);
  const day = 1 + Math.floor(random() * 28);
  return {
    id,
    kommune,
    kommunenavn,
    gnr: 1 + Math.floor(random() * 400),
    bnr: 1 + Math.floor(random() * 900),
    streetCode: 1000 + streetIndex,
    street: STREETS[streetIndex],
    number: 1 + Math.floor(random() * 150),
    letter: random() < 0.2 ? 'ABCD'[Math.floor(random() * 4)] : '',
    // EPSG:25833, south-eastern Norway: Nord above Øst, inside the adapter's bounds.
    north: Math.round((6_640_000 + random() * 20_000) * 100) / 100,
    east: Math.round((250_000 + random() * 50_000) * 100) / 100,
    postnr: String(100 + Math.floor(random() * 9000)).padStart(4, '0'),
    poststed,
    updated: `${pad(day)}.${pad(1 + version)}.2024 10:00:00`,
  };
}

function csvRow(r: AddressRow): string {
  const text = `${r.street} ${r.number}${r.letter}`;
  return [
    r.id, r.kommune, r.kommunenavn, 'vegadresse', '', '', r.streetCode, r.street, r.number, r.letter, r.gnr, r.bnr, '', '', text, text,
    25833, r.north.toFixed(2), r.east.toFixed(2), r.postnr, r.poststed, `${r.kommune}0101`, 'Sentrum', '01010101', 'Domkirken', '', '', '', '1', 'SENTRUM',
    r.updated, '03.01.2025 05:00:00', r.id, `9db1c324-33b3-5cca-81cd-${String(r.id).padStart(12, '0')}`,
  ].join(';') + ';'.repeat(12);
}

export function addressCsv(rows: readonly AddressRow[], header = ADDRESS_CSV_HEADER): string {
  return [header, ...rows.map(csvRow)].join('\n');
}

export interface Changes {
  updated: number;
  inserted: number;
  deleted: number;
}

export interface AddressSnapshots {
  a: AddressRow[];
  /** A month later: A with rows updated, inserted and deleted. */
  b: AddressRow[];
  /** Another such month, with other changes (the competing backfill). */
  c: AddressRow[];
  changes: { b: Changes; c: Changes };
}

/** `a` with 6 % of its rows updated, 3 % deleted and 4 % new ones (ids from `firstNewId`). */
function nextMonth(a: readonly AddressRow[], random: () => number, firstNewId: number, shift: number): { rows: AddressRow[]; changes: Changes } {
  const rows: AddressRow[] = [];
  let updated = 0;
  let deleted = 0;
  for (const row of a) {
    const roll = random();
    if (roll < 0.03) {
      deleted++;
      continue;
    }
    if (roll < 0.09) {
      updated++;
      // A moved entrance, a new letter, a new postal code: what a register's month brings.
      rows.push({ ...row, north: row.north + shift, letter: row.letter ? '' : 'B', postnr: String((Number(row.postnr) + 17) % 9999).padStart(4, '0'), updated: '15.10.2025 09:30:00' });
      continue;
    }
    rows.push(row);
  }
  const inserted = Math.round(a.length * 0.04);
  for (let i = 0; i < inserted; i++) rows.push(makeRow(random, firstNewId + i, 9));
  return { rows, changes: { updated, inserted, deleted } };
}

/** A with `rows` addresses; B and C each a different month after it. */
export function addressSnapshots(rows: number, seed = 'nordprop-faults'): AddressSnapshots {
  const random = seedrandom(seed);
  const a = Array.from({ length: rows }, (_, i) => makeRow(random, 500_000_001 + i, 0));
  const b = nextMonth(a, random, 600_000_001, 3.5);
  const c = nextMonth(a, random, 650_000_001, 7.25);
  return { a, b: b.rows, c: c.rows, changes: { b: b.changes, c: c.changes } };
}

/** A zip of one entry `<name>.csv`: deflated, or STORED (`compress: false`). */
export async function zipOf(name: string, content: Buffer, compress: boolean): Promise<Buffer> {
  const zip = new ZipFile();
  zip.addBuffer(content, name, { compress, mtime: new Date(2024, 0, 1) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes `content` as `<dir>/<label>/<fileName>` (each input in its own folder: national file names repeat). */
export async function writeInput(dir: string, label: string, fileName: string, content: Buffer | string): Promise<string> {
  const folder = path.join(dir, 'inputs', label);
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, fileName);
  await writeFile(file, content);
  return file;
}

/**
 * A Teig GML of `count` plain parcels, each the fixture's first teig (test/fixtures/no/teig)
 * moved and renumbered. `breakAt`: the feature whose closing tag is broken (`</app:Teig` loses
 * its `>`, so the XML is not well-formed from there on).
 */
export async function teigGml(count: number, breakAt?: number): Promise<string> {
  const fixture = await readFile(path.join(PROJECT_ROOT, 'test/fixtures/no/teig/oslo-25833.gml'), 'utf8');
  const head = fixture.slice(0, fixture.indexOf('<!--'));
  const parts: string[] = [head];
  for (let i = 0; i < count; i++) {
    const id = 700_000 + i;
    const x = 262_500 + (i % 100) * 40;
    const y = 6_649_400 + Math.floor(i / 100) * 40;
    const ring = [[x, y], [x + 30, y], [x + 30, y + 27.08], [x, y + 27.08], [x, y]].map(([e, n]) => `${e.toFixed(2)} ${n.toFixed(2)}`).join(' ');
    parts.push(`  <gml:featureMember>
    <app:Teig gml:id="teig.${id}">
      <app:identifikasjon><app:Identifikasjon><app:lokalId>${id}</app:lokalId><app:navnerom>https://data.geonorge.no/sosi/matrikkelen/teig</app:navnerom></app:Identifikasjon></app:identifikasjon>
      <app:kommunenummer>0301</app:kommunenummer>
      <app:område>
        <gml:Polygon gml:id="teig.${id}.p" srsName="urn:ogc:def:crs:EPSG::25833" srsDimension="2">
          <gml:exterior><gml:LinearRing><gml:posList>${ring}</gml:posList></gml:LinearRing></gml:exterior>
        </gml:Polygon>
      </app:område>
      <app:matrikkelenhet><app:Matrikkelenhet><app:kommunenummer>0301</app:kommunenummer><app:gardsnummer>${300 + Math.floor(i / 500)}</app:gardsnummer><app:bruksnummer>${1 + (i % 500)}</app:bruksnummer><app:festenummer>0</app:festenummer><app:seksjonsnummer>0</app:seksjonsnummer><app:hovedteig>true</app:hovedteig></app:Matrikkelenhet></app:matrikkelenhet>
      <app:teigareal><app:Areal><app:lagretBeregnetAreal>812.4</app:lagretBeregnetAreal></app:Areal></app:teigareal>
    ${i === breakAt ? '</app:Teig' : '</app:Teig>'}
  </gml:featureMember>
`);
  }
  parts.push('</gml:FeatureCollection>\n');
  return parts.join('');
}
