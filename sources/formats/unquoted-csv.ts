import type { Readable } from 'node:stream';
import { readFailure } from './input-error.js';
import { StrictUtf8Decoder } from './text-encoding.js';
import { MAX_RECORD_BYTES, recordTooLong } from './record-size.js';

/**
 * Reads delimiter-separated text that has no quoting at all, as Kartverket's Matrikkelen CSV
 * is specified ("no quote characters anywhere"), in batches of lines split into fields.
 *
 * Written here instead of using csv-parse because for this format a CSV state machine only
 * costs time: on the 1,000,000-row sample, csv-parse (quote: false) took 19 s, papaparse's
 * fastMode 8 s, and splitting lines and fields 3.9 s on the same machine. Quote characters are
 * kept as literal text, exactly as csv-parse with `quote: false` did.
 *
 * Also decodes UTF-8 strictly: a register re-saved as Latin-1 fails with the byte offset
 * instead of loading with replacement characters in every name.
 */

export interface Line {
  /** 1-based line number in the file. */
  number: number;
  fields: string[];
  text: string;
}

/**
 * An unfinished line up to this length is put in front of the next chunk, as line readers do; a
 * longer one is held in pieces until its end arrives, and only each new chunk is searched:
 * putting it in front of every next chunk and searching it again made a line of n chunks cost
 * n² (a 32 MB line took 6.3 s, a file without line breaks hours).
 */
const SHORT_LINE = 1 << 16;

export async function* readUnquotedLines(input: Readable, options: { delimiter: string; label: string; batchSize?: number }): AsyncGenerator<Line[]> {
  const { delimiter, label } = options;
  const batchSize = options.batchSize ?? 2000;
  const decoder = new StrictUtf8Decoder(label);
  let carry = '';
  /** A long unfinished line, in pieces. */
  let pieces: string[] | undefined;
  let piecesLength = 0;
  let number = 0;
  let batch: Line[] = [];

  const take = (text: string) => {
    number++;
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line !== '') batch.push({ number, fields: line.split(delimiter), text: line });
  };
  const hold = (piece: string) => {
    (pieces ??= []).push(piece);
    piecesLength += piece.length;
    if (piecesLength > MAX_RECORD_BYTES) throw recordTooLong(label, number + 1);
  };

  try {
    for await (const chunk of input) {
      let text = decoder.decode(chunk as Buffer);
      let start = 0;
      if (pieces) {
        const end = text.indexOf('\n');
        if (end === -1) {
          hold(text);
          continue;
        }
        take(pieces.join('') + text.slice(0, end));
        pieces = undefined;
        piecesLength = 0;
        start = end + 1;
      } else text = carry + text;
      for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
        take(text.slice(start, end));
        start = end + 1;
      }
      carry = text.slice(start);
      if (carry.length > SHORT_LINE) {
        hold(carry);
        carry = '';
      }
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    const last = (pieces ? pieces.join('') : carry) + decoder.end();
    if (last !== '') take(last);
  } catch (error) {
    // A damaged zip entry is reported as such, not as the encoding error its garbage causes.
    throw await readFailure(error, { input, label, at: `at line ${number + 1}` });
  }
  if (batch.length) yield batch;
}
