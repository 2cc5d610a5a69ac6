import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InputFormatError } from '../../../sources/formats/input-error.js';
import { readBygningElements } from '../../../sources/formats/bygning-gml.js';
import { StrictUtf8Decoder, utf8Text } from '../../../sources/formats/text-encoding.js';
import { readUnquotedLines } from '../../../sources/formats/unquoted-csv.js';
import { readTeigFeatures } from '../../../sources/no/cadastre/parse.js';

/**
 * One strict UTF-8 decoder for every reader of a UTF-8 format: a malformed byte sequence is an
 * InputFormatError naming the file and the byte it starts at, whichever reader meets it.
 */

async function failureOf(read: () => AsyncIterable<unknown>): Promise<Error> {
  try {
    for await (const _ of read()) void _;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the reader accepted the bytes');
}

const chunks = (...parts: Buffer[]) => Readable.from(parts);

describe('StrictUtf8Decoder', () => {
  it('decodes a character split between two chunks, and drops a BOM', () => {
    const decoder = new StrictUtf8Decoder('split.csv');
    const bytes = Buffer.from('\uFEFFBærum', 'utf8'); // æ is 0xC3 0xA6
    const at = bytes.indexOf(0xa6);
    expect(decoder.decode(bytes.subarray(0, at)) + decoder.decode(bytes.subarray(at)) + decoder.end()).toBe('Bærum');
  });

  it('rejects a malformed byte sequence with the file and the byte where it starts, in a later chunk too', () => {
    const decoder = new StrictUtf8Decoder('names.csv');
    decoder.decode(Buffer.from('id;name\n', 'utf8'));
    const error = (() => {
      try {
        decoder.decode(Buffer.from('1;Bærum\n', 'latin1')); // æ as the single Latin-1 byte 0xE6
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InputFormatError);
    expect((error as Error).message).toBe('names.csv is not valid UTF-8 near byte 11 (is it Latin-1 or Windows-1252?); re-encode the file as UTF-8');
  });

  it('rejects a file whose last sequence is cut short', () => {
    const decoder = new StrictUtf8Decoder('cut.csv');
    decoder.decode(Buffer.from([0x61, 0xc3]));
    expect(() => decoder.end()).toThrow(/^cut\.csv is not valid UTF-8 near byte 2/);
  });
});

describe('every UTF-8 reader refuses the same Latin-1 byte the same way', () => {
  // "Bærum" in Latin-1: the lone 0xE6 after 'B' is not UTF-8.
  const prefix = (text: string) => Buffer.from(text, 'utf8');
  const latin1 = Buffer.from('Bærum', 'latin1');

  it('delimited text, unquoted CSV, Teig GML and building GML name the byte', async () => {
    const csv = Buffer.concat([prefix('a;b\n'), latin1]);
    const gml = Buffer.concat([prefix('<?xml version="1.0"?>\n<x>'), latin1]);
    const cases: [string, () => AsyncIterable<unknown>, number][] = [
      ['text.csv', () => utf8Text(chunks(csv), 'text.csv'), 5],
      ['plain.csv', () => readUnquotedLines(chunks(csv), { delimiter: ';', label: 'plain.csv' }), 5],
      ['Teig GML', () => readTeigFeatures(chunks(gml)), 26],
      ['building GML', () => readBygningElements(chunks(gml)), 26],
    ];
    for (const [label, read, byte] of cases) {
      const error = await failureOf(read);
      expect(error, label).toBeInstanceOf(InputFormatError);
      expect(error.message, label).toMatch(new RegExp(`^${label.replace('.', '\\.')} is not valid UTF-8 near byte ${byte} \\(.+\\); re-encode the file as UTF-8$`));
    }
  });
});
