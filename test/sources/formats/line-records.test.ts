import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { blankLinesExcept, hashLineRecords, LineSet, type HashedLine } from '../../../sources/formats/line-records.js';
import { readUnquotedLines } from '../../../sources/formats/unquoted-csv.js';
import { readDelimited } from '../../../sources/formats/delimited.js';

/** `text` as a stream of chunks of `size` bytes, so lines straddle chunk boundaries. */
const chunked = (text: string, size = 7) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
};

async function hashes(text: string, header: boolean, quote?: string): Promise<{ lines: HashedLine[]; regular: boolean }> {
  const all: HashedLine[] = [];
  const layout = { regular: true };
  for await (const batch of hashLineRecords(chunked(text), { header, quote, label: 'test.csv' }, layout)) all.push(...batch);
  return { lines: all, regular: layout.regular };
}

const FILE = 'id;name\r\n1;Ås\r\n\r\n2;Bø\r\n3;Øye\r\n4;Ål';

describe('hashLineRecords', () => {
  it('numbers the record lines as the line parser does, skipping the header and empty lines', async () => {
    const hashed = (await hashes(FILE, true)).lines;
    expect(hashed.map((line) => line.number)).toEqual([2, 4, 5, 6]);
    const parsed: number[] = [];
    for await (const lines of readUnquotedLines(chunked(FILE), { delimiter: ';', label: 'test' })) parsed.push(...lines.map((line) => line.number));
    expect(parsed.slice(1)).toEqual([2, 4, 5, 6]);
  });

  it('gives an unchanged line the same hash wherever it stands, and every line a new one when the header changes', async () => {
    const before = (await hashes(FILE, true)).lines;
    const moved = (await hashes('id;name\r\n0;Ny\r\n1;Ås\r\n2;Bø\r\n3;Øye\r\n4;Ål\r\n', true)).lines;
    expect(moved.slice(1).map((line) => line.hash)).toEqual(before.map((line) => line.hash));
    const otherHeader = (await hashes(FILE.replace('id;name', 'id;navn'), true)).lines;
    for (const [i, line] of otherHeader.entries()) expect(line.hash).not.toBe(before[i].hash);
  });

  it('hashes every non-empty line of a file without a header', async () => {
    expect((await hashes('{"a":1}\n\n{"a":2}\n', false)).lines.map((line) => line.number)).toEqual([1, 3]);
  });
});

const QUOTED = 'id,name\r\n1,"Ås, ""gamle"" gård"\r\n\r\n2,Bø\r\n3,"Øye"\r\n';

describe('hashLineRecords of a quoted CSV', () => {
  it('reads a file whose quoted fields stay on their line as one record per line, doubled quotes included', async () => {
    const hashed = await hashes(QUOTED, true, '"');
    expect(hashed).toMatchObject({ regular: true, lines: [{ number: 2 }, { number: 4 }, { number: 5 }] });
  });

  it('finds a quoted field that holds a line break, so the file is staged whole', async () => {
    expect((await hashes(QUOTED.replace('gamle', 'gamle\r\n'), true, '"')).regular).toBe(false);
    // Unquoted, the same bytes are just more lines.
    expect((await hashes(QUOTED.replace('gamle', 'gamle\r\n'), true)).regular).toBe(true);
  });
});

describe('blankLinesExcept', () => {
  it('keeps the header and the chosen lines, at the line numbers they had', async () => {
    const keep = new LineSet();
    keep.add(5);
    const parsed: Array<[number, string]> = [];
    const filtered = Readable.from(blankLinesExcept(chunked(FILE), { header: true, keep: (line) => keep.has(line), label: 'test.csv' }));
    for await (const lines of readUnquotedLines(filtered, { delimiter: ';', label: 'test' })) parsed.push(...lines.map((line): [number, string] => [line.number, line.text]));
    expect(parsed).toEqual([[1, 'id;name'], [5, '3;Øye']]);
  });

  it('leaves csv-parse the line numbers and the CRLF endings of a quoted file', async () => {
    const keep = new LineSet();
    keep.add(5);
    const filtered = Readable.from(blankLinesExcept(chunked(QUOTED), { header: true, keep: (line) => keep.has(line), label: 'test.csv' }));
    const text = (async function* () {
      for await (const chunk of filtered) yield (chunk as Buffer).toString('utf8');
    })();
    const parsed: Array<[number, string[]]> = [];
    for await (const lines of readDelimited(text, { delimiter: ',', quote: '"' })) parsed.push(...lines.map((line): [number, string[]] => [line.line, line.fields ?? []]));
    expect(parsed).toEqual([[1, ['id', 'name']], [5, ['3', 'Øye']]]);
  });
});

describe('hashLineRecords with a spool', () => {
  // Each kind of line a file holds: a header, CRLF and LF endings, empty lines, a last line without its newline.
  const FILES = [
    { name: 'a CRLF file with a header and an empty line', text: FILE, header: true },
    { name: 'a quoted CRLF file', text: QUOTED, header: true, quote: '"' },
    { name: 'LF lines without a header, ending in empty lines', text: '{"a":1}\n\n{"a":2}\n{"a":3}\n\n', header: false },
    { name: 'empty lines before the header', text: '\r\n\nid;name\n1;Ås\n2;Bø', header: true },
  ];

  it.each(FILES)('writes what blankLinesExcept gives for the lines it keeps, byte for byte: $name', async ({ text, header, quote }) => {
    const asked: number[] = [];
    const written: Buffer[] = [];
    // Keeps every other record line, by its number; the hash it is asked with is the line's.
    const spool = { keep: (number: number) => (asked.push(number), number % 2 === 0), write: (bytes: Buffer) => void written.push(Buffer.from(bytes)) };
    const hashed: HashedLine[] = [];
    for await (const batch of hashLineRecords(chunked(text, 5), { header, quote, label: 'test.csv', spool }, { regular: true })) hashed.push(...batch);
    expect(asked).toEqual(hashed.map((line) => line.number));
    const secondPass: Buffer[] = [];
    for await (const bytes of blankLinesExcept(chunked(text, 5), { header, keep: (number) => number % 2 === 0, label: 'test.csv' })) secondPass.push(bytes);
    expect(Buffer.concat(written).toString('latin1')).toBe(Buffer.concat(secondPass).toString('latin1'));
  });

  it('asks the spool with each line\'s hash, and leaves the hashes as they are without one', async () => {
    const asked: string[] = [];
    const spool = { keep: (_number: number, hash: string) => (asked.push(hash), false), write: () => undefined };
    const hashed: HashedLine[] = [];
    for await (const batch of hashLineRecords(chunked(FILE), { header: true, label: 'test.csv', spool })) hashed.push(...batch);
    expect(hashed).toEqual((await hashes(FILE, true)).lines);
    expect(asked).toEqual(hashed.map((line) => line.hash));
  });
});

describe('LineSet', () => {
  it('holds positions of a bundle\'s later members (past 2³¹) apart, and lists them in order', () => {
    const set = new LineSet();
    const positions = [7, 1_000_000_003, 2_000_000_002, 3_000_000_001, 3_000_000_009];
    for (const position of [...positions].reverse()) set.add(position);
    expect(positions.every((position) => set.has(position))).toBe(true);
    // A shift of a position past 2³¹ wraps to a negative index: 3,000,000,001 was taken as another position.
    expect([8, 1_000_000_002, 3_000_000_000, 3_000_000_005, -1_294_967_295].some((position) => set.has(position))).toBe(false);
    expect([...set]).toEqual(positions);
    const nth = set.nthInOrder();
    expect([nth(1), nth(3), nth(5)]).toEqual([7, 2_000_000_002, 3_000_000_009]);
  });
});
