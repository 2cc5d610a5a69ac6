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
  const decoder = new StrictUtf8Decoder(label);
  try {
    for await (const chunk of input) {
      const text = decoder.decode(chunk as Buffer);
      if (text) yield text;
    }
    const rest = decoder.end();
    if (rest) yield rest;
  } catch (error) {
    throw await readFailure(error, { input, label, at: `at byte ${decoder.bytesRead}` });
  }
}

const LATIN1_HINT = 'is it Latin-1 or Windows-1252?';

/**
 * The one strict UTF-8 decoder every reader of a UTF-8 format uses: chunks are decoded as they
 * arrive (a character split between two chunks is fine), a BOM is dropped, and the first
 * invalid byte sequence is an InputFormatError naming the file and the byte where it starts,
 * never a U+FFFD in a stored name.
 */
export class StrictUtf8Decoder {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private offset = 0;

  /**
   * @param label the file, as messages name it
   * @param hint what the bytes probably are, for the message (default: Latin-1 or Windows-1252)
   */
  constructor(
    private readonly label: string,
    private readonly hint: () => string = () => LATIN1_HINT,
  ) {}

  /** Bytes decoded so far. */
  get bytesRead(): number {
    return this.offset;
  }

  decode(chunk: Uint8Array): string {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw this.invalid(this.offset + Math.max(0, firstBadUtf8(chunk)));
    }
    this.offset += chunk.length;
    return text;
  }

  /** The characters held back at the end; an incomplete last sequence fails. */
  end(): string {
    try {
      return this.decoder.decode();
    } catch {
      throw this.invalid(this.offset);
    }
  }

  private invalid(byte: number): InputFormatError {
    return new InputFormatError(`${this.label} is not valid UTF-8 near byte ${byte} (${this.hint()}); re-encode the file as UTF-8`);
  }
}

/** Offset of the first byte that cannot start or continue a UTF-8 sequence, or -1 (approximate: for messages). */
function firstBadUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    let need = 0;
    if (b < 0x80) continue;
    else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return -1; // may continue in the next chunk
      if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    }
    i += need;
  }
  return -1;
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
