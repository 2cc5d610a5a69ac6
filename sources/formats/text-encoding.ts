import type { Readable } from 'node:stream';
import { InputFormatError, readFailure, readFrom } from './input-error.js';

/**
 * Register files come in two encodings (Bolagsverket UTF-8, SCB Latin-1) and each is easily
 * re-saved in the other one. Either mistake would load every å, ä and ö as mojibake, so both
 * decoders refuse the wrong encoding with a clear error instead.
 */

/** Decodes UTF-8 strictly: a Latin-1 file fails with the byte offset. A BOM is dropped. */
export function utf8Text(input: Readable, label: string): AsyncGenerator<string> {
  return readFrom(decodeUtf8(input, label), input);
}

async function* decodeUtf8(input: Readable, label: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  try {
    for await (const chunk of input) {
      let text: string;
      try {
        text = decoder.decode(chunk as Buffer, { stream: true });
      } catch (error) {
        throw new InputFormatError(`${label} is not valid UTF-8 near byte ${offset} (is it Latin-1 or Windows-1252?): ${(error as Error).message}`);
      }
      offset += (chunk as Buffer).length;
      if (text) yield text;
    }
    let rest: string;
    try {
      rest = decoder.decode();
    } catch (error) {
      throw new InputFormatError(`${label} is not valid UTF-8 near byte ${offset} (is it Latin-1 or Windows-1252?): ${(error as Error).message}`);
    }
    if (rest) yield rest;
  } catch (error) {
    throw await readFailure(error, { input, label, at: `at byte ${offset}` });
  }
}

/**
 * A UTF-8 lead byte of Latin-1 letters (0xC3 for å ä ö é ü …, 0xC2 for symbols) followed by a
 * continuation byte: in real Latin-1 text that pair is `Ã` + a C1 control or symbol, which
 * never occurs in Swedish names and addresses; in UTF-8 it is every non-ASCII letter.
 */
function utf8PairAt(bytes: Buffer): number {
  for (let i = 0; i + 1 < bytes.length; i++) {
    const b = bytes[i];
    if ((b === 0xc3 || b === 0xc2) && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0xbf) return i;
  }
  return -1;
}

/** Decodes Latin-1 (ISO 8859-1); a file that is really UTF-8 fails instead of turning `ö` into `Ã¶`. */
export function latin1Text(input: Readable, label: string): AsyncGenerator<string> {
  return readFrom(decodeLatin1(input, label), input);
}

async function* decodeLatin1(input: Readable, label: string): AsyncGenerator<string> {
  let offset = 0;
  let carry: number | null = null;
  try {
    for await (const chunk of input) {
      const bytes = chunk as Buffer;
      const probe = carry === null ? bytes : Buffer.concat([Buffer.from([carry]), bytes]);
      const at = utf8PairAt(probe);
      if (at >= 0) {
        const where = offset + at - (carry === null ? 0 : 1);
        throw new InputFormatError(`${label} looks UTF-8 encoded (bytes ${probe.subarray(at, at + 2).toString('hex')} near byte ${where}), but this file is delivered in Latin-1; refusing to load it as mojibake`);
      }
      carry = bytes.length ? bytes[bytes.length - 1] : carry;
      offset += bytes.length;
      yield bytes.toString('latin1');
    }
  } catch (error) {
    throw await readFailure(error, { input, label, at: `at byte ${offset}` });
  }
}
