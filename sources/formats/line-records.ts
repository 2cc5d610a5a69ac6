import { hash } from 'node:crypto';
import { MAX_RECORD_BYTES, recordTooLong } from './record-size.js';

/**
 * Byte-level reading of a file whose every record is one line (SourceAdapter.lineRecords): the
 * night's stage hashes each line without parsing it, then feeds the parser only the lines whose
 * hash the last publish did not have (activities/record-hashes.ts). Lines are numbered from 1
 * over every line of the file, empty ones included, exactly as readUnquotedLines numbers them,
 * so a record's position is the same whether the parser saw the whole file or the filtered one.
 */

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** The line without the `\r` of a CRLF ending, which the line parsers drop too. */
function withoutCarriageReturn(line: Buffer): Buffer {
  return line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.subarray(0, -1) : line;
}

const NEWLINE_BYTES = Buffer.from('\n');
const CARRIAGE_RETURN_BYTES = Buffer.from('\r');
const NO_BYTES = Buffer.alloc(0);

/** What stands for a line left out (before its `\n`): nothing, or its `\r` where it ends CRLF, since csv-parse takes the first line ending it meets as the only one. */
const blankLineOf = (line: Buffer): Buffer => (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? CARRIAGE_RETURN_BYTES : NO_BYTES);

/** An empty line (or a lone `\r`) is no record: the line parsers skip it. */
function isEmptyLine(line: Buffer): boolean {
  return withoutCarriageReturn(line).length === 0;
}

/**
 * The lines of `input` (without their newline) with their numbers from 1, a chunk's worth at a
 * time. Only each new chunk is searched for line breaks, and a line that spans chunks is joined
 * once: carrying the unfinished line into every next chunk and searching it again made a line of
 * n chunks cost n² (a 32 MB line took 6.6 s, a file without line breaks hours).
 */
export async function* linesOf(input: AsyncIterable<Buffer>, label: string): AsyncGenerator<Array<[number, Buffer]>> {
  let unfinished: Buffer[] = [];
  let unfinishedLength = 0;
  let number = 0;
  for await (const chunk of input) {
    const lines: Array<[number, Buffer]> = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const tail = chunk.subarray(start, end);
      if (unfinished.length === 0) lines.push([++number, tail]);
      else {
        lines.push([++number, Buffer.concat([...unfinished, tail])]);
        unfinished = [];
        unfinishedLength = 0;
      }
      start = end + 1;
    }
    if (start < chunk.length) {
      unfinished.push(chunk.subarray(start));
      unfinishedLength += chunk.length - start;
      if (unfinishedLength > MAX_RECORD_BYTES) throw recordTooLong(label, number + 1);
    }
    if (lines.length) yield lines;
  }
  if (unfinishedLength) yield [[++number, Buffer.concat(unfinished)]];
}

/** Whether a file's records can be read apart for a night's filtered parse (see each format's hasher). */
export interface RecordLayout {
  regular: boolean;
}

export interface HashedLine {
  /** The line's number in the file (1-based). */
  number: number;
  /** The first 128 bits of SHA-1 of the salt (where given), the header line and this line, in hex (a uuid to PostgreSQL). */
  hash: string;
  /** The record's group where its source declares one (SourceAdapter's `RecordGroup`). */
  group?: string | null;
}

/**
 * Where a night's hashing pass writes what the parser will read, so that the file is not unzipped
 * and scanned a second time: the records `keep` accepts (by number and hash), and around them
 * what the format's filtered reader would give (blankLinesExcept for lines, keepFeatures for GML
 * features). activities/record-spool.ts decides which records to keep.
 */
export interface RecordSpool {
  keep(number: number, hash: string): boolean;
  write(bytes: Buffer): void;
}

/** Whether `line` holds an odd number of `quote` bytes: it ends inside a quoted field that goes on in the next line. */
function endsInsideQuotes(line: Buffer, quote: number): boolean {
  let count = 0;
  for (let at = line.indexOf(quote); at !== -1; at = line.indexOf(quote, at + 1)) count++;
  return count % 2 === 1;
}

/**
 * Hashes every record line of `input`, a chunk's lines at a time. With `header`, the first
 * non-empty line is the header: it is no record, and every record's hash covers it too, so a
 * file whose columns moved reads as changed throughout. With `quote` (a quoted CSV, where a
 * doubled quote stands for one), a line with an odd number of quotes opens a field that holds a
 * line break: its record spans lines, and `layout.regular` is cleared (the file is staged whole).
 * With `spool`, writes to it the file as blankLinesExcept gives it for the lines the spool keeps:
 * every line keeps its number, so the parser reads the spooled file as it reads the filtered one.
 */
export async function* hashLineRecords(
  input: AsyncIterable<Buffer>,
  options: {
    header: boolean;
    quote?: string;
    /** The file, for an error's message. */
    label: string;
    /** The record's group from its line, given the header line (without its line break) where the file has one. */
    groupOf?: (header: Buffer | undefined) => (line: Buffer) => string | null;
    /** Bytes every record's hash covers besides the header (a bundle's context members, SourceAdapter.bundleRecords). */
    salt?: Buffer;
    /** A night's: where the lines go as the parser will read them (blank unless the spool keeps them). */
    spool?: RecordSpool;
  },
  layout?: RecordLayout,
): AsyncGenerator<HashedLine[]> {
  // One-shot SHA-1 (hardware-accelerated here): 0.5 s for a 240 MB file of 389,003 lines, where
  // an MD5 state copied per line took 0.94 s.
  let header: Buffer | undefined = options.salt;
  let headerSeen = !options.header;
  const quote = options.quote === undefined ? undefined : options.quote.charCodeAt(0);
  // The group reader, made once the header (if any) is known.
  let group = options.header ? undefined : options.groupOf?.(undefined);
  const { spool } = options;
  for await (const lines of linesOf(input, options.label)) {
    const hashed: HashedLine[] = [];
    // The chunk's lines as the spool gets them, written once per chunk.
    const spooled: Buffer[] = [];
    for (const [number, raw] of lines) {
      const line = withoutCarriageReturn(raw);
      if (spool && (line.length === 0 || !headerSeen)) spooled.push(raw, NEWLINE_BYTES);
      if (line.length === 0) continue;
      if (quote !== undefined && layout?.regular && endsInsideQuotes(line, quote)) layout.regular = false;
      if (!headerSeen) {
        header = Buffer.concat([...(options.salt ? [options.salt] : []), line, NEWLINE_BYTES]);
        headerSeen = true;
        group = options.groupOf?.(line);
        continue;
      }
      const record: HashedLine = { number, hash: hash('sha1', header ? Buffer.concat([header, line]) : line, 'hex').slice(0, 32) };
      if (group) record.group = group(line);
      hashed.push(record);
      if (spool) spooled.push(spool.keep(number, record.hash) ? raw : blankLineOf(raw), NEWLINE_BYTES);
    }
    if (spool && spooled.length) spool.write(Buffer.concat(spooled));
    if (hashed.length) yield hashed;
  }
}

/**
 * `input` with every record line `keep` refuses replaced by an empty line: the parser skips it
 * but still counts it, so the kept records keep their line numbers as positions. With
 * `header`, the first non-empty line is kept whatever `keep` says. An empty line keeps the
 * line's CRLF ending: csv-parse takes the first line ending it meets as the only one.
 */
export async function* blankLinesExcept(input: AsyncIterable<Buffer>, options: { header: boolean; keep: (number: number) => boolean; label: string }): AsyncGenerator<Buffer> {
  let headerSeen = !options.header;
  for await (const lines of linesOf(input, options.label)) {
    const out: Buffer[] = [];
    for (const [number, line] of lines) {
      const isHeader = !headerSeen && !isEmptyLine(line);
      if (isHeader) headerSeen = true;
      out.push(isHeader || options.keep(number) ? line : blankLineOf(line), NEWLINE_BYTES);
    }
    yield Buffer.concat(out);
  }
}

/** Positions per chunk of a LineSet: 8 KiB of bits. */
const CHUNK_POSITIONS = 65_536;

/**
 * A set of line numbers (or a bundle's member positions, member ordinal × 10⁹ + line) as one
 * bit each, in chunks made as they are first written: a national file's changed lines in a few
 * hundred kilobytes, and a bundle's far-apart members without the gaps between them. Plain
 * division, not bit shifts: positions pass 2³¹ from a bundle's third member on.
 */
export class LineSet {
  private readonly chunks = new Map<number, Uint8Array>();

  add(position: number): void {
    const chunk = Math.floor(position / CHUNK_POSITIONS);
    let bits = this.chunks.get(chunk);
    if (!bits) this.chunks.set(chunk, (bits = new Uint8Array(CHUNK_POSITIONS / 8)));
    const offset = position - chunk * CHUNK_POSITIONS;
    bits[offset >> 3] |= 1 << (offset & 7);
  }

  has(position: number): boolean {
    const chunk = Math.floor(position / CHUNK_POSITIONS);
    const bits = this.chunks.get(chunk);
    if (!bits) return false;
    const offset = position - chunk * CHUNK_POSITIONS;
    return (bits[offset >> 3] & (1 << (offset & 7))) !== 0;
  }

  /** The positions in increasing order. */
  *[Symbol.iterator](): Generator<number> {
    for (const chunk of [...this.chunks.keys()].sort((a, b) => a - b)) {
      const bits = this.chunks.get(chunk)!;
      for (let byte = 0; byte < bits.length; byte++) {
        if (bits[byte] === 0) continue;
        for (let bit = 0; bit < 8; bit++) if (bits[byte] & (1 << bit)) yield chunk * CHUNK_POSITIONS + byte * 8 + bit;
      }
    }
  }

  /**
   * The n-th member (from 1) for n = 1, 2, … asked in increasing order, as a filtered file's
   * parser numbers the records it was given; each call walks on from the previous one.
   */
  nthInOrder(): (n: number) => number {
    const positions = this[Symbol.iterator]();
    let n = 0;
    let member = 0;
    return (wanted) => {
      if (wanted < n) throw new Error(`record ${wanted} asked for after record ${n}: positions must increase`);
      for (; n < wanted; n++) {
        const next = positions.next();
        if (next.done) throw new Error(`the filtered file holds more than the ${n} records kept`);
        member = next.value;
      }
      return member;
    };
  }
}
