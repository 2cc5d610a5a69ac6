/**
 * Streaming reader for Kartverket's Matrikkelen Bygning (bygningspunkt) GML: one record per
 * `Bygning` element, as soon as its end tag is read, so memory stays flat whatever the size.
 *
 * A generic shape rather than the Teig reader's field-by-field state machine: a building point
 * is a flat list of simple fields plus three kinds of repeated child objects (Matrikkelenhet,
 * Bruksenhet, BygningsstatusHistorikk), so every leaf's text is stored under its local name in
 * the innermost open object. Elements are matched by local name (prefixes differ between
 * Geonorge, WFS and hand-made extracts). Checking and mapping the values is the adapter's job.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { localName } from './xml-name.js';
import { InputFormatError, readFailure } from './input-error.js';
import { StrictUtf8Decoder } from './text-encoding.js';

export type Fields = Record<string, string>;

export interface BygningElement {
  /** 1-based index of the Bygning element in the file. */
  position: number;
  /** Leaves directly under the building (and under its Identifikasjon), by local name. */
  fields: Fields;
  /** `pos` of the representasjonspunkt (or any Point) as written, with the srsName in force there. */
  point: { pos: string; srsName: string | null } | null;
  matrikkelenheter: Fields[];
  bruksenheter: Fields[];
  statusHistory: Fields[];
  /** Source excerpt of the element (capped), for quarantine rows. */
  raw: string;
}

const FEATURE = 'Bygning';
/** Child objects collected as lists, by their element's local name. */
const OBJECTS: Record<string, 'matrikkelenheter' | 'bruksenheter' | 'statusHistory'> = {
  Matrikkelenhet: 'matrikkelenheter',
  Bruksenhet: 'bruksenheter',
  BygningsstatusHistorikk: 'statusHistory',
};
const RAW_CAP = 2000;
const PIECE = 64 * 1024;
/** Source text kept from before the current piece: far longer than any start tag. */
const TAIL = 4096;

function attribute(tag: SaxesTagPlain, name: string, suffix: string): string | undefined {
  const attributes = tag.attributes;
  for (const key in attributes) if (key === name || key.endsWith(suffix)) return attributes[key];
  return undefined;
}

/**
 * localName with a cache: a building file repeats a few dozen element names millions of times,
 * and slicing each one anew (a new string per tag, then garbage) showed in the profile.
 */
const localNames = new Map<string, string>();
function cachedLocalName(qualified: string): string {
  let local = localNames.get(qualified);
  if (local === undefined) {
    local = localName(qualified);
    // Bounded: a file with endless distinct names must not grow memory without limit.
    if (localNames.size < 10_000) localNames.set(qualified, local);
  }
  return local;
}

interface Frame {
  local: string;
  text: string;
  hasChild: boolean;
  srsName: string | undefined;
}

class BygningParser {
  readonly out: BygningElement[] = [];
  private readonly sax = new SaxesParser({ xmlns: false, position: true });
  /** Open elements: stack[0..depth-1]; frames past depth are kept for reuse (no allocation per tag). */
  private readonly stack: Frame[] = [];
  private depth = 0;
  private current: BygningElement | null = null;
  private featureDepth = 0;
  private object: Fields | null = null;
  private objectDepth = 0;
  private count = 0;
  private piece = '';
  private rawStart = 0;
  private written = 0;
  private tail = '';
  /** saxes position of the open feature's start tag. */
  private featureStart = 0;

  constructor() {
    this.sax.on('opentag', (tag) => this.onOpen(tag));
    this.sax.on('closetag', () => this.onClose());
    this.sax.on('text', (text) => this.onText(text));
    this.sax.on('cdata', (text) => this.onText(text));
    this.sax.on('error', (error) => {
      throw new InputFormatError(`Malformed or truncated building GML at line ${this.sax.line}, column ${this.sax.column}: ${error.message.replace(/^\d+:\d+: /, '')}`);
    });
  }

  write(piece: string): void {
    const open = this.current;
    if (open && open.raw.length < RAW_CAP) open.raw += piece.slice(0, RAW_CAP - open.raw.length);
    this.piece = piece;
    // saxes' position is exact inside its events but not between writes: count ourselves.
    this.rawStart = this.written;
    this.sax.write(piece);
    this.written += piece.length;
    this.tail = piece.length >= TAIL ? piece.slice(-TAIL) : (this.tail + piece).slice(-TAIL);
  }

  close(): void {
    this.sax.close();
    if (this.current) throw new InputFormatError(`building GML ends inside Bygning element ${this.current.position}`);
  }

  /** Where saxes is in the document, for a message. */
  where(): string {
    return `at line ${this.sax.line}, column ${this.sax.column}`;
  }

  private onText(text: string): void {
    if (!this.current || this.depth === 0) return;
    const top = this.stack[this.depth - 1];
    // Text of an element that has children is never read (only leaves hold values): skipping
    // the indentation between child elements saves a string concatenation per tag.
    if (!top.hasChild) top.text += text;
  }

  private onOpen(tag: SaxesTagPlain): void {
    const local = cachedLocalName(tag.name);
    if (this.depth > 0) this.stack[this.depth - 1].hasChild = true;
    const srsName = attribute(tag, 'srsName', ':srsName');
    const depth = ++this.depth;
    const frame = this.stack[depth - 1];
    if (frame) {
      frame.local = local;
      frame.text = '';
      frame.hasChild = false;
      frame.srsName = srsName;
    } else {
      this.stack.push({ local, text: '', hasChild: false, srsName });
    }
    // An Envelope in boundedBy states the CRS of the element that owns the boundedBy.
    if (srsName !== undefined && local === 'Envelope' && depth >= 3 && this.stack[depth - 2].local === 'boundedBy') {
      this.stack[depth - 3].srsName ??= srsName;
    }
    if (!this.current) {
      if (local === FEATURE) this.openFeature();
      return;
    }
    if (!this.object && local in OBJECTS) {
      this.object = {};
      this.objectDepth = depth;
      this.current[OBJECTS[local]].push(this.object);
    }
  }

  private openFeature(): void {
    // The excerpt starts at this start tag: the last '<' before saxes' position in this piece.
    // saxes' position is just past the start tag; the tag may straddle the previous piece,
    // whose tail is kept for that case only (joining on every feature would copy each piece).
    const at = this.sax.position - this.rawStart;
    let from = this.piece.lastIndexOf('<', at - 1);
    let excerpt: string;
    if (from >= 0) {
      this.featureStart = this.rawStart + from;
      excerpt = this.piece.slice(from, from + RAW_CAP);
    } else {
      const text = this.tail + this.piece;
      from = Math.max(0, text.lastIndexOf('<', this.tail.length + at - 1));
      this.featureStart = this.rawStart - this.tail.length + from;
      excerpt = text.slice(from, from + RAW_CAP);
    }
    this.current = {
      position: ++this.count,
      fields: {},
      point: null,
      matrikkelenheter: [],
      bruksenheter: [],
      statusHistory: [],
      raw: excerpt,
    };
    this.featureDepth = this.depth;
  }

  private srsNameInForce(): string | null {
    for (let i = this.depth - 1; i >= 0; i--) if (this.stack[i].srsName !== undefined) return this.stack[i].srsName!;
    return null;
  }

  private onClose(): void {
    const depth = this.depth;
    const frame = this.stack[depth - 1];
    const feature = this.current;
    if (feature) {
      if (depth === this.featureDepth) {
        this.finishFeature(feature);
      } else if (this.object && depth === this.objectDepth) {
        this.object = null;
      } else if (!frame.hasChild) {
        const value = frame.text.trim();
        if (frame.local === 'pos') {
          feature.point ??= { pos: value, srsName: this.srsNameInForce() };
        } else {
          const target = this.object ?? feature.fields;
          // The first occurrence wins; a repeated simple field is reported by the adapter's checks only if it matters.
          if (!(frame.local in target)) target[frame.local] = value;
        }
      }
    }
    frame.text = ''; // a reused frame must not keep a large text alive
    this.depth--;
  }

  private finishFeature(feature: BygningElement): void {
    // saxes' position is just past this end tag: cut the excerpt there.
    feature.raw = feature.raw.slice(0, Math.max(0, this.sax.position - this.featureStart));
    this.out.push(feature);
    this.current = null;
    this.object = null;
  }
}

/**
 * Streams the Bygning elements of a GML document. A document that is not well-formed XML or
 * not UTF-8 throws an InputFormatError: nothing after that point can be trusted.
 */
export async function* readBygningElements(input: AsyncIterable<Buffer | string>): AsyncGenerator<BygningElement[]> {
  const parser = new BygningParser();
  const decoder = new StrictUtf8Decoder('building GML');
  let first = true;
  const feed = (text: string) => {
    for (let i = 0; i < text.length; i += PIECE) parser.write(text.slice(i, i + PIECE));
  };
  try {
    for await (const chunk of input) {
      let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk);
      if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
      feed(text);
      if (parser.out.length) yield parser.out.splice(0);
    }
    feed(decoder.end());
    parser.close();
  } catch (error) {
    // Whatever stopped the reader (saxes, the decoder, the input stream), a damaged zip entry
    // is reported as the damage; anything else as an InputFormatError with the position.
    throw await readFailure(error, { input, label: 'building GML', problem: 'is malformed or truncated', at: parser.where() });
  }
  if (parser.out.length) yield parser.out.splice(0);
}
