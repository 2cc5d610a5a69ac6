import { hash } from 'node:crypto';
import { InputFormatError } from './input-error.js';
import type { HashedLine, RecordLayout, RecordSpool } from './line-records.js';
import { MAX_RECORD_BYTES } from './record-size.js';

/**
 * Byte-level reading of a GML feature collection whose every record is one feature element
 * (SourceAdapter.featureRecords): the night's stage hashes each feature's bytes without parsing
 * them, then feeds the parser only the features whose hash the last publish did not have
 * (activities/record-hashes.ts). The XML parse, geometry and reprojection are most of a GML
 * stage; this scan finds the features by their tags alone.
 *
 * Features are numbered from 1 in file order, counting every element of the feature's local
 * name (any prefix) that is not inside another, as the GML parsers number their positions.
 * Comments, CDATA sections and processing instructions are skipped as XML skips them, so a tag
 * written inside one is not taken for a feature.
 *
 * A feature's row depends on its own bytes and on the CRS its ancestors state (`srsName`,
 * `srsDimension`, also through a collection's boundedBy envelope). So each hash covers the
 * feature's bytes and every such attribute of the text before the first feature (not the rest
 * of it: a WFS collection's timeStamp and numberMatched change every night). The filtered file
 * the parser then reads is that text, the kept features, and the text after the last one;
 * which holds only when what stands between two features is wrapper tags without attributes
 * (`</gml:featureMember><gml:featureMember>`), closing and opening the same elements. A file
 * laid out otherwise (other elements between the features, wrappers with attributes) is still
 * hashed, but `layout.regular` says it cannot be filtered.
 */

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;

/** Text before the first feature kept whole (for the filtered file); a collection's header is a few kilobytes. */
const HEADER_CAP = 16 * 1024 * 1024;
/** Text between two features that is more than this is no wrapper: the layout is irregular. */
const BETWEEN_CAP = 64 * 1024;

function endsName(byte: number | undefined): boolean {
  return byte === undefined || byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === GT || byte === SLASH;
}

function bytesAt(buffer: Buffer, at: number, bytes: Buffer): boolean {
  if (at + bytes.length > buffer.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buffer[at + i] !== bytes[i]) return false;
  return true;
}

const COMMENT_OPEN = Buffer.from('<!--');
const CDATA_OPEN = Buffer.from('<![CDATA[');

/** Where the construct starting with `<` at `at` ends (one past its last byte); -1 when the buffer ends first. */
function endOfMarkup(buffer: Buffer, at: number): number {
  const next = buffer[at + 1];
  if (next === BANG) {
    if (buffer.length < at + CDATA_OPEN.length) return -1; // too short to tell a comment from CDATA
    if (bytesAt(buffer, at, COMMENT_OPEN)) {
      const end = buffer.indexOf('-->', at + 4);
      return end === -1 ? -1 : end + 3;
    }
    if (bytesAt(buffer, at, CDATA_OPEN)) {
      const end = buffer.indexOf(']]>', at + CDATA_OPEN.length);
      return end === -1 ? -1 : end + 3;
    }
    // A DOCTYPE, with an internal subset in brackets.
    for (let i = at + 2, depth = 0; i < buffer.length; i++) {
      if (buffer[i] === OPEN_BRACKET) depth++;
      else if (buffer[i] === CLOSE_BRACKET) depth--;
      else if (buffer[i] === GT && depth <= 0) return i + 1;
    }
    return -1;
  }
  if (next === QUESTION) {
    const end = buffer.indexOf('?>', at + 2);
    return end === -1 ? -1 : end + 2;
  }
  // A tag: its end is the first '>' outside a quoted attribute value.
  for (let i = at + 1, quote = 0; i < buffer.length; i++) {
    const byte = buffer[i];
    if (quote !== 0) {
      if (byte === quote) quote = 0;
    } else if (byte === QUOTE || byte === APOSTROPHE) quote = byte;
    else if (byte === GT) return i + 1;
  }
  return -1;
}

/** The name of the tag at `at` (after `<` or `</`), or undefined when the buffer ends inside it. */
function tagName(buffer: Buffer, from: number): Buffer | undefined {
  let end = from;
  while (end < buffer.length && !endsName(buffer[end])) end++;
  return end === buffer.length ? undefined : buffer.subarray(from, end);
}

/** Whether `span` holds `<` followed by `marker` (`!` opens a comment or CDATA section, `?` a processing instruction). */
function holdsMarkupStart(span: Buffer, marker: number): boolean {
  for (let at = span.indexOf(marker, 1); at !== -1; at = span.indexOf(marker, at + 1)) if (span[at - 1] === LT) return true;
  return false;
}

/**
 * One past the closing tag of the open feature named `qualified`, when it is the next tag of
 * that name after `from` and no comment, CDATA section, processing instruction or start tag of
 * the same name stands between; -1 otherwise (the caller then steps through the tags).
 *
 * The name is searched for, not `</` and the name: Buffer.indexOf looks for a needle's first
 * byte and compares from there, and a GML file has a `<` every few bytes. Over the 191 MB of a
 * 0.05 × national Teig file, finding every `</app:Teig` took 1,255 ms, every `app:Teig` 188 ms
 * (likewise `<!` and `<?` against `!` and `?`, which GML hardly uses). The whole hashing pass,
 * unzip included, side by side on 2026-11-29: the Bygning file's 2.2–2.4 s became 1.5–1.8 s,
 * the Teig file's 1.4–1.5 s 1.1–1.4 s (its unzip alone takes 1.2 s).
 */
function closingTagEnd(buffer: Buffer, from: number, qualified: Buffer): number {
  let close = -1;
  for (let at = buffer.indexOf(qualified, from); at !== -1; at = buffer.indexOf(qualified, at + 1)) {
    const after = at + qualified.length;
    if (after === buffer.length) return -1; // whether the name ends here comes with the next chunk
    // `app:Bygning` also begins `app:BygningsstatusHistorikk`, and ends `xapp:Bygning`.
    if (!endsName(buffer[after]) || at - 1 < from) continue;
    const before = buffer[at - 1];
    if (before === LT) return -1; // a start tag of the same name: nested
    if (before === SLASH && at - 2 >= from && buffer[at - 2] === LT) {
      close = at - 2;
      break;
    }
  }
  if (close === -1) return -1;
  const span = buffer.subarray(from, close);
  if (holdsMarkupStart(span, BANG) || holdsMarkupStart(span, QUESTION)) return -1;
  return endOfMarkup(buffer, close);
}

function localPart(name: Buffer): Buffer {
  const colon = name.lastIndexOf(COLON);
  return colon === -1 ? name : name.subarray(colon + 1);
}

/**
 * What stands between two features may be only wrapper tags, closed and opened again in the
 * same order, without attributes (comments and processing instructions aside).
 */
function isWrapperText(text: string): boolean {
  const tags = text.replace(/<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g, ' ');
  const match = /^\s*((?:<\/[^\s<>/!?]+\s*>\s*)*)((?:<[^\s<>/!?]+\s*>\s*)*)$/.exec(tags);
  if (!match) return false;
  const closed = [...match[1].matchAll(/<\/([^\s>]+)/g)].map((m) => m[1]);
  const opened = [...match[2].matchAll(/<([^\s>]+)/g)].map((m) => m[1]);
  return closed.length === opened.length && closed.every((name, i) => name === opened[opened.length - 1 - i]);
}

/** The CRS the ancestors of the first feature can state: every srsName and srsDimension attribute before it. */
function crsContext(header: Buffer): Buffer {
  const attributes = header.toString('latin1').match(/(?:^|[\s])(?:[\w.-]+:)?srs(?:Name|Dimension)\s*=\s*("[^"]*"|'[^']*')/g) ?? [];
  return Buffer.from(`${attributes.map((attribute) => attribute.trim()).join('\n')}\n`, 'latin1');
}

/**
 * The chunks of `input` as buffers to scan, each after the markup the scan of the last one left
 * unfinished (`unfinished()`, read once the scan is done). Markup that spans many chunks (a long
 * comment, CDATA section or tag) is tried again only once the bytes held have doubled: joining
 * and scanning it again at every chunk made it cost the square of its length.
 */
async function* withUnfinishedMarkup(input: AsyncIterable<Buffer>, unfinished: () => Buffer | undefined): AsyncGenerator<Buffer> {
  const carried = (): Buffer | undefined => {
    const carry = unfinished();
    if (carry && carry.length > MAX_RECORD_BYTES) {
      throw new InputFormatError(`GML markup (a tag, comment or CDATA section) runs on past ${MAX_RECORD_BYTES / 1024 / 1024} MiB without ending`);
    }
    return carry;
  };
  let held: Buffer[] = [];
  let heldLength = 0;
  let retryAt = 0;
  for await (const chunk of input) {
    held.push(chunk);
    heldLength += chunk.length;
    if (heldLength < retryAt) continue;
    yield held.length === 1 ? held[0] : Buffer.concat(held);
    const carry = carried();
    held = carry ? [carry] : [];
    heldLength = carry?.length ?? 0;
    retryAt = 2 * heldLength;
  }
  // Chunks that came after the last try.
  if (held.length > 1) {
    yield Buffer.concat(held);
    carried();
  }
}

export type FeatureSegment =
  /** Everything before the first feature. */
  | { kind: 'header'; bytes: Buffer }
  | { kind: 'feature'; number: number; bytes: Buffer }
  /** What stands after the last feature (the rest of the file). */
  | { kind: 'trailer'; bytes: Buffer };

/** `regular` is cleared when what stands between two features is not bare wrapper tags: the file cannot be filtered. */
export type FeatureLayout = RecordLayout;

/**
 * The file cut into its header, its features and its trailer, a chunk's segments at a time.
 * Header and trailer are whole; text between features is checked for `layout` and dropped.
 */
async function* featureSegments(input: AsyncIterable<Buffer>, element: string, layout: FeatureLayout): AsyncGenerator<FeatureSegment[]> {
  const local = Buffer.from(element);
  let carry: Buffer | undefined;
  /** Bytes of the current segment from earlier chunks. */
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let state: 'header' | 'between' | 'feature' = 'header';
  let qualified: Buffer | undefined; // the open feature's tag name, prefix included
  let depth = 0;
  let number = 0;
  let wrapper: Buffer | undefined; // the last text between features found to be wrapper tags

  const take = (bytes: Buffer) => {
    // Text between features is only kept as long as it can be wrapper tags.
    if (state === 'between' && pendingLength + bytes.length > BETWEEN_CAP) {
      layout.regular = false;
      pending = [];
      pendingLength = 0;
      return;
    }
    pending.push(bytes);
    pendingLength += bytes.length;
    if (state === 'header' && pendingLength > HEADER_CAP) {
      throw new InputFormatError(`no ${element} element in the first ${HEADER_CAP / 1024 / 1024} MB of the GML file`);
    }
    // A feature is held whole until it closes: one that never does (a truncated or hostile file)
    // would be held to the end of the file.
    if (state === 'feature' && pendingLength > MAX_RECORD_BYTES) {
      throw new InputFormatError(`${element} feature ${number} runs on past ${MAX_RECORD_BYTES / 1024 / 1024} MiB without closing (a truncated file, or a closing tag missing)`);
    }
  };
  const finish = (): Buffer => {
    const bytes = pending.length === 1 ? pending[0] : Buffer.concat(pending);
    pending = [];
    pendingLength = 0;
    return bytes;
  };

  for await (const buffer of withUnfinishedMarkup(input, () => carry)) {
    carry = undefined;
    let stepping = false;
    const out: FeatureSegment[] = [];
    let segmentStart = 0;
    let at = 0;
    /** The open feature ends just before `end`. */
    const closeFeature = (end: number) => {
      take(buffer.subarray(segmentStart, end));
      out.push({ kind: 'feature', number, bytes: finish() });
      segmentStart = at = end;
      state = 'between';
      depth = 0;
    };
    for (;;) {
      if (state === 'feature' && depth === 1 && !stepping) {
        // Fast path: the feature's closing tag found directly, when nothing before it could hide
        // one or nest another (a comment, CDATA, a start tag of the same name). Over the 423 MB
        // of a 0.05 × national Bygning file the hashing pass took 1.7 s with it, 2.0 s stepping
        // through every tag (0.5 s of either is the unzip).
        const end = closingTagEnd(buffer, at, qualified!);
        if (end !== -1) {
          closeFeature(end);
          continue;
        }
        stepping = true; // until the feature ends or more of the file arrives
      }
      const open = buffer.indexOf(LT, at);
      if (open === -1) break;
      const next = buffer[open + 1];
      if (next === undefined) {
        carry = buffer.subarray(open);
        break;
      }
      if (state === 'feature') {
        // Inside a feature only the tags of its own name count (a nested one of the same name,
        // its closing tag); other markup is passed over, comments and CDATA whole.
        if (next === BANG || next === QUESTION) {
          const end = endOfMarkup(buffer, open);
          if (end === -1) {
            carry = buffer.subarray(open);
            break;
          }
          at = end;
          continue;
        }
        const closing = next === SLASH;
        const nameAt = open + (closing ? 2 : 1);
        if (buffer.length <= nameAt + qualified!.length) {
          carry = buffer.subarray(open);
          break;
        }
        if (!bytesAt(buffer, nameAt, qualified!) || !endsName(buffer[nameAt + qualified!.length])) {
          at = open + 1;
          continue;
        }
        const end = endOfMarkup(buffer, open);
        if (end === -1) {
          carry = buffer.subarray(open);
          break;
        }
        at = end;
        if (!closing && buffer[end - 2] !== SLASH) depth++;
        else if (closing && --depth === 0) closeFeature(end);
        continue;
      }
      // Header or between features: markup is read whole; a start tag of the feature's name opens one.
      const end = endOfMarkup(buffer, open);
      if (end === -1) {
        carry = buffer.subarray(open);
        break;
      }
      at = end;
      if (next === BANG || next === QUESTION || next === SLASH) continue;
      const name = tagName(buffer, open + 1)!;
      if (!localPart(name).equals(local)) continue;
      take(buffer.subarray(segmentStart, open));
      const before = finish();
      if (state === 'header') out.push({ kind: 'header', bytes: before });
      // A regular file repeats the same wrapper text between every two features: checked once.
      else if (layout.regular && !(wrapper && before.equals(wrapper))) {
        if (isWrapperText(before.toString('latin1'))) wrapper = before;
        else layout.regular = false;
      }
      number++;
      segmentStart = open;
      if (buffer[end - 2] === SLASH) {
        // An empty feature element: a feature all the same, which the parser rejects.
        out.push({ kind: 'feature', number, bytes: buffer.subarray(open, end) });
        segmentStart = end;
        state = 'between';
      } else {
        // Most files name every feature alike: the name is copied out of the chunk when it changes.
        if (!qualified?.equals(name)) qualified = Buffer.from(name);
        depth = 1;
        state = 'feature';
        stepping = false;
      }
    }
    take(buffer.subarray(segmentStart, carry ? buffer.length - carry.length : buffer.length));
    if (out.length) yield out;
  }
  if (carry) take(carry);
  if (state === 'feature') {
    // A truncated file: the parser reports where; hashed as it stands, it is a feature that changed.
    yield [{ kind: 'feature', number, bytes: finish() }];
    layout.regular = false;
  } else if (state === 'header') yield [{ kind: 'header', bytes: finish() }];
  else yield [{ kind: 'trailer', bytes: finish() }];
}

/**
 * Hashes every feature of `input` (the first 128 bits of SHA-1 over the CRS context and the
 * feature's bytes, in hex), a chunk's features at a time. `layout.regular` is final once the
 * iteration ends; a spool is only what keepFeatures gives while it is. With `spool`, writes to it
 * the header, the features it keeps and the trailer, as keepFeatures gives them.
 */
export async function* hashFeatureRecords(
  input: AsyncIterable<Buffer>,
  options: { element: string; spool?: RecordSpool },
  layout: FeatureLayout,
): AsyncGenerator<HashedLine[]> {
  const { spool } = options;
  let context: Buffer = Buffer.alloc(0);
  for await (const segments of featureSegments(input, options.element, layout)) {
    const hashed: HashedLine[] = [];
    for (const segment of segments) {
      if (segment.kind === 'feature') {
        const record = { number: segment.number, hash: hash('sha1', Buffer.concat([context, segment.bytes]), 'hex').slice(0, 32) };
        hashed.push(record);
        if (spool?.keep(record.number, record.hash)) spool.write(segment.bytes);
        continue;
      }
      if (segment.kind === 'header') context = crsContext(segment.bytes);
      spool?.write(segment.bytes);
    }
    if (hashed.length) yield hashed;
  }
}

/**
 * `input` with only the features `keep` accepts: the header, those features one after another,
 * and the trailer. The parser numbers the kept features 1, 2, …; the caller maps them back to
 * their numbers in the file. Only for a file whose layout `hashFeatureRecords` found regular.
 */
export async function* keepFeatures(input: AsyncIterable<Buffer>, options: { element: string; keep: (number: number) => boolean }): AsyncGenerator<Buffer> {
  const layout: FeatureLayout = { regular: true };
  for await (const segments of featureSegments(input, options.element, layout)) {
    const kept = segments.filter((segment) => segment.kind !== 'feature' || options.keep(segment.number)).map((segment) => segment.bytes);
    if (kept.length) yield Buffer.concat(kept);
  }
  if (!layout.regular) throw new InputFormatError(`the GML file's features are not laid out as when it was hashed; stage it whole (--force)`);
}
