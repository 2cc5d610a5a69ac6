/**
 * Streaming reader for Kartverket's Matrikkelen Eiendomskart Teig GML 3.2.
 *
 * One pass of saxes events drives a small state machine; only the feature currently open
 * is held, so memory stays flat however large the file is. Elements are matched by local
 * name because Geonorge, WFS and hand-exported files bind the schema to different prefixes.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { localName } from '../../formats/xml-name.js';
import { InputFormatError, readFailure } from '../../formats/input-error.js';
import { appendSegment, checkRing, NON_LINEAR_SEGMENTS, reversePairs } from '../../formats/gml-rings.js';
import { parseCoords } from '../../formats/gml-coordinates.js';
import { StrictUtf8Decoder } from '../../formats/text-encoding.js';
import { emptyUnit, unitsOfTeig, type TeigUnitRef, type UnitParts } from './teig-units.js';
import { SUPPORTED_SRIDS, UnknownCrsError, isLatitudeFirst, parseSrid } from '../../geo/reproject.js';

export type TeigRecord =
  | { kind: 'feature'; feature: TeigFeature }
  | { kind: 'reject'; position: number; reason: string; raw: string };

export type { TeigUnitRef } from './teig-units.js';

export interface TeigFeature {
  /** 1-based index of the Teig element in the file. */
  position: number;
  lokalId: string;
  srid: number;
  /** Rings as flat [x0,y0,x1,y1,...] in east, north (lon, lat) order; first ring exterior, rest holes. */
  polygons: number[][][];
  units: TeigUnitRef[];
  kommunenummer: string;
  matrikkelnummerTekst: string | null;
  storedAreaM2: number | null;
  /** Size-capped source excerpt of the element, for quarantine rows. */
  raw: string;
}


const RAW_CAP = 2000;
/** Pieces fed to saxes at once; bounds how many finished records wait before being yielded. */
const PIECE = 64 * 1024;
/** Source text kept behind the current piece for cutting excerpts; far longer than any start tag. */
const KEEP = 4096;

const enum Section { Other, Ident, IdentTeig, Omrade, Enhet }

const enum Field {
  None, LokalId, TeigId, Kommune, MatrTekst, Area,
  UKommune, UGnr, UBnr, UFnr, USnr, UHoved, PropHoved, PosList, Pos,
}

interface CrsInfo { srid: number; latFirst: boolean }

class FeatureState {
  gmlId: string | null = null;
  lokalId: string | null = null;
  teigId: string | null = null;
  kommunenummer: string | null = null;
  matrikkelnummerTekst: string | null = null;
  area: string | null = null;
  units: UnitParts[] = [];
  polygons: number[][][] = [];
  crs: CrsInfo | null = null;
  sawOmrade = false;
  reject: string | null = null;
  raw = '';
  constructor(readonly position: number, readonly rawStart: number) {}
}

function parseBool(text: string): boolean | null {
  const t = text.trim().toLowerCase();
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  return null;
}

/**
 * Returns an unshared copy: V8 slices keep their parent alive, so a short id or excerpt cut
 * from a 64 KB piece would otherwise pin the whole piece for as long as the caller keeps it.
 */
function detach(s: string): string {
  return s.length < 13 ? s : structuredClone(s);
}

// Namespace processing costs saxes a quarter of its time; elements are matched by local name,
// so the reader takes the prefix off itself.
function attr(tag: SaxesTagPlain, name: string): string | undefined {
  return tag.attributes[name];
}

class TeigParser {
  readonly out: TeigRecord[] = [];
  private readonly sax: SaxesParser<{ xmlns: false; position: true }>;

  private depth = 0;
  private readonly locals: string[] = [];
  private readonly srsAt: (string | undefined)[] = [];
  private readonly dimAt: (string | undefined)[] = [];
  private readonly crsCache = new Map<string, CrsInfo | string>();

  private count = 0;
  private f: FeatureState | null = null;
  private teigDepth = 0;
  private section = Section.Other;

  private field = Field.None;
  private fieldDepth = 0;
  private text = '';

  private unit: UnitParts | null = null;
  private unitDepth = 0;
  private propUnits: UnitParts[] = [];
  private propHoved: boolean | null = null;

  // Geometry under område
  private poly = false;
  private exterior: number[] | null = null;
  private holes: number[][] = [];
  private ring: number[] | null = null;
  private member: number[] | null = null;
  private memberReversed = false;
  private seg: number[] | null = null;
  private posDim = 2;

  // The most recent pieces (at least KEEP chars before the current one), so a feature's raw
  // excerpt can be cut from the source text even when its start tag straddles pieces.
  private readonly recent: string[] = [];
  private recentStart = 0;
  private recentLen = 0;

  constructor() {
    this.sax = new SaxesParser({ xmlns: false, position: true });
    this.sax.on('opentag', (tag) => this.onOpen(tag));
    this.sax.on('closetag', (tag) => this.onClose(tag));
    this.sax.on('text', (t) => {
      if (this.field !== Field.None) this.text += t;
    });
    this.sax.on('cdata', (t) => {
      if (this.field !== Field.None) this.text += t;
    });
    this.sax.on('error', (err) => {
      const detail = err.message.replace(/^\d+:\d+: /, '');
      throw new InputFormatError(
        `Malformed or truncated GML at line ${this.sax.line}, column ${this.sax.column}: ${detail}`,
      );
    });
  }

  write(piece: string): void {
    const recent = this.recent;
    recent.push(piece);
    this.recentLen += piece.length;
    while (recent.length > 1 && this.recentLen - recent[0].length - piece.length >= KEEP) {
      const dropped = recent.shift()!;
      this.recentStart += dropped.length;
      this.recentLen -= dropped.length;
    }
    const f = this.f;
    if (f !== null && f.raw.length < RAW_CAP) f.raw += piece.slice(0, RAW_CAP - f.raw.length);
    this.sax.write(piece);
  }

  close(): void {
    this.sax.close();
  }

  /** Where saxes is in the document, for a message. */
  where(): string {
    return `at line ${this.sax.line}, column ${this.sax.column}`;
  }

  /** Source text between absolute positions, as far as the recent pieces still hold it. */
  private sliceAbs(from: number, to: number): string {
    let out = '';
    let start = this.recentStart;
    for (const piece of this.recent) {
      const end = start + piece.length;
      if (end > from && start < to) out += piece.slice(Math.max(0, from - start), to - start);
      start = end;
    }
    return out;
  }

  /** Absolute position of the last '<' before `pos`. */
  private lastOpenBracket(pos: number): number {
    let end = this.recentStart + this.recentLen;
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const piece = this.recent[i];
      const start = end - piece.length;
      if (start < pos) {
        const at = piece.lastIndexOf('<', pos - 1 - start);
        if (at >= 0) return start + at;
      }
      end = start;
    }
    return this.recentStart;
  }

  private reject(reason: string): void {
    if (this.f !== null && this.f.reject === null) this.f.reject = reason;
  }

  private capture(field: Field): void {
    this.field = field;
    this.fieldDepth = this.depth;
    this.text = '';
  }

  private lookup(stack: (string | undefined)[]): string | undefined {
    for (let d = this.depth; d >= 0; d--) {
      const v = stack[d];
      if (v !== undefined) return v;
    }
    return undefined;
  }

  private crsFor(srsName: string): CrsInfo | string {
    let info = this.crsCache.get(srsName);
    if (info === undefined) {
      try {
        const srid = parseSrid(srsName);
        info = SUPPORTED_SRIDS.includes(srid)
          ? { srid, latFirst: isLatitudeFirst(srsName, srid) }
          : `EPSG:${srid} is not a supported coordinate reference system (srsName "${srsName}")`;
      } catch (e) {
        if (!(e instanceof UnknownCrsError)) throw e;
        info = e.message;
      }
      this.crsCache.set(srsName, info);
    }
    return info;
  }

  private onOpen(tag: SaxesTagPlain): void {
    const d = ++this.depth;
    const local = localName(tag.name);
    this.locals[d] = local;
    const srsName = attr(tag, 'srsName');
    if (srsName !== undefined) {
      this.srsAt[d] = srsName;
      // An Envelope in boundedBy states the CRS of the element that owns the boundedBy.
      if ((local === 'Envelope' || local === 'EnvelopeWithTimePeriod') && d >= 2 && this.locals[d - 1] === 'boundedBy') {
        if (this.srsAt[d - 2] === undefined) this.srsAt[d - 2] = srsName;
      }
    }
    const dim = attr(tag, 'srsDimension');
    if (dim !== undefined) this.dimAt[d] = dim;

    const f = this.f;
    if (f === null) {
      if (local === 'Teig') this.openTeig(tag);
      return;
    }
    if (d === this.teigDepth + 1) {
      this.openTopLevel(local);
      return;
    }
    if (f.reject !== null) return;
    switch (this.section) {
      case Section.Omrade:
        this.openGeometry(tag, local);
        break;
      case Section.Ident:
        if (local === 'lokalId') this.capture(Field.LokalId);
        break;
      case Section.IdentTeig:
        if (local === 'teigId') this.capture(Field.TeigId);
        break;
      case Section.Enhet:
        this.openUnitPart(local, d);
        break;
      default:
        if (local === 'lagretBeregnetAreal') this.capture(Field.Area);
    }
  }

  private openTeig(tag: SaxesTagPlain): void {
    const rawStart = this.lastOpenBracket(this.sax.position);
    const f = new FeatureState(++this.count, rawStart);
    f.raw = this.sliceAbs(rawStart, rawStart + RAW_CAP);
    for (const key in tag.attributes) {
      if (localName(key) === 'id') f.gmlId = tag.attributes[key];
    }
    this.f = f;
    this.teigDepth = this.depth;
    this.section = Section.Other;
  }

  private openTopLevel(local: string): void {
    this.section = Section.Other;
    switch (local) {
      case 'område':
      case 'omrade':
        this.section = Section.Omrade;
        this.f!.sawOmrade = true;
        break;
      case 'identifikasjon':
        this.section = Section.Ident;
        break;
      case 'identTeig':
        this.section = Section.IdentTeig;
        break;
      case 'matrikkelenhet':
        this.section = Section.Enhet;
        this.propUnits = [];
        this.propHoved = null;
        break;
      case 'kommunenummer':
        this.capture(Field.Kommune);
        break;
      case 'matrikkelnummerTekst':
        this.capture(Field.MatrTekst);
        break;
      case 'lagretBeregnetAreal':
        this.capture(Field.Area);
        break;
      case 'teigId':
        this.capture(Field.TeigId);
        break;
    }
  }

  private openUnitPart(local: string, d: number): void {
    if (this.unit === null) {
      if (local === 'Matrikkelenhet') {
        this.unit = emptyUnit();
        this.unitDepth = d;
      } else if (local === 'hovedteig' || local === 'hovedområde' || local === 'hovedomrade') {
        this.capture(Field.PropHoved);
      }
      return;
    }
    switch (local) {
      case 'kommunenummer': this.capture(Field.UKommune); break;
      case 'gardsnummer': this.capture(Field.UGnr); break;
      case 'bruksnummer': this.capture(Field.UBnr); break;
      case 'festenummer': this.capture(Field.UFnr); break;
      case 'seksjonsnummer': this.capture(Field.USnr); break;
      case 'hovedteig':
      case 'hovedområde':
      case 'hovedomrade':
        this.capture(Field.UHoved);
        break;
    }
  }

  private openGeometry(tag: SaxesTagPlain, local: string): void {
    switch (local) {
      case 'Polygon':
      case 'PolygonPatch': {
        if (this.poly) return;
        const srsName = this.lookup(this.srsAt);
        if (srsName === undefined) return this.reject('geometry has no srsName, and none is inherited from an envelope or ancestor');
        const crs = this.crsFor(srsName);
        if (typeof crs === 'string') return this.reject(crs);
        const f = this.f!;
        if (f.crs === null) f.crs = crs;
        else if (f.crs.srid !== crs.srid || f.crs.latFirst !== crs.latFirst) {
          return this.reject(`polygons use different coordinate reference systems (EPSG:${f.crs.srid} and EPSG:${crs.srid})`);
        }
        this.poly = true;
        this.exterior = null;
        this.holes = [];
        return;
      }
      case 'exterior':
      case 'interior':
        if (this.poly) this.ring = [];
        return;
      case 'LinearRing':
        if (this.ring !== null) this.seg = this.ring;
        return;
      case 'curveMember':
        if (this.ring !== null) {
          this.member = [];
          this.memberReversed = false;
        }
        return;
      case 'OrientableCurve':
        if (this.member !== null && attr(tag, 'orientation') === '-') this.memberReversed = !this.memberReversed;
        return;
      case 'LineString':
      case 'LineStringSegment':
        if (this.ring !== null && this.seg !== this.ring) this.seg = [];
        return;
      case 'posList':
      case 'pos': {
        if (this.ring === null) return;
        const dimText = this.lookup(this.dimAt);
        const dim = dimText === undefined ? 2 : Number(dimText);
        if (dim !== 2 && dim !== 3) return this.reject(`unsupported srsDimension "${dimText}" (expected 2 or 3)`);
        this.posDim = dim;
        this.capture(local === 'pos' ? Field.Pos : Field.PosList);
        return;
      }
      case 'coordinates':
        if (this.ring !== null) this.reject('gml:coordinates is not supported; expected gml:posList or gml:pos');
        return;
      default:
        if (this.ring !== null && NON_LINEAR_SEGMENTS.has(local)) this.reject(`unsupported curve segment gml:${local} in a ring`);
    }
  }

  private onClose(tag: SaxesTagPlain): void {
    const d = this.depth--;
    this.srsAt[d] = undefined;
    this.dimAt[d] = undefined;
    const f = this.f;
    if (f === null) return;
    if (this.field !== Field.None && d === this.fieldDepth) this.storeField(f);
    if (d === this.teigDepth) {
      this.closeTeig(f);
      return;
    }
    const local = localName(tag.name);
    if (d === this.teigDepth + 1) {
      if (this.section === Section.Enhet) this.closeUnitProperty(f);
      this.section = Section.Other;
      this.resetGeometry();
      return;
    }
    if (this.section === Section.Enhet) {
      if (this.unit !== null && d === this.unitDepth) {
        this.propUnits.push(this.unit);
        this.unit = null;
      }
      return;
    }
    if (this.section === Section.Omrade && f.reject === null) this.closeGeometry(f, local);
  }

  private storeField(f: FeatureState): void {
    const field = this.field;
    const text = this.text;
    this.field = Field.None;
    this.text = '';
    const unit = this.unit;
    switch (field) {
      case Field.LokalId: f.lokalId ??= text.trim(); break;
      case Field.TeigId: f.teigId ??= text.trim(); break;
      case Field.Kommune: f.kommunenummer = text.trim(); break;
      case Field.MatrTekst: f.matrikkelnummerTekst = text.trim(); break;
      case Field.Area: f.area = text.trim(); break;
      case Field.UKommune: if (unit) unit.kommunenummer ??= text; break;
      case Field.UGnr: if (unit) unit.gardsnummer ??= text; break;
      case Field.UBnr: if (unit) unit.bruksnummer ??= text; break;
      case Field.UFnr: if (unit) unit.festenummer ??= text; break;
      case Field.USnr: if (unit) unit.seksjonsnummer ??= text; break;
      case Field.UHoved: if (unit) unit.hoved ??= parseBool(text); break;
      case Field.PropHoved: this.propHoved = parseBool(text); break;
      case Field.PosList:
      case Field.Pos: this.storeCoords(f, text, field === Field.Pos); break;
    }
  }

  private storeCoords(f: FeatureState, text: string, single: boolean): void {
    if (this.ring === null || f.crs === null) return;
    const latFirst = f.crs.latFirst;
    // Points of a LinearRing, or of the current curve segment, extend it directly;
    // a bare posList in a curve member is a segment of its own.
    if (this.seg !== null || single) {
      const target = this.seg ?? this.member ?? this.ring;
      const err = parseCoords(text, this.posDim, latFirst, target, single);
      if (err !== null) this.reject(err);
      return;
    }
    const pts: number[] = [];
    const err = parseCoords(text, this.posDim, latFirst, pts, false);
    if (err !== null) return this.reject(err);
    appendSegment(this.member ?? this.ring, pts);
  }

  private closeGeometry(f: FeatureState, local: string): void {
    switch (local) {
      case 'LineString':
      case 'LineStringSegment':
        if (this.seg !== null && this.seg !== this.ring) {
          appendSegment(this.member ?? this.ring!, this.seg);
          this.seg = null;
        }
        return;
      case 'LinearRing':
        this.seg = null;
        return;
      case 'curveMember':
        if (this.member !== null && this.ring !== null) {
          appendSegment(this.ring, this.memberReversed ? reversePairs(this.member) : this.member);
        }
        this.member = null;
        return;
      case 'exterior':
      case 'interior': {
        const ring = this.ring;
        if (ring === null) return;
        this.ring = null;
        const polyNo = f.polygons.length + 1;
        const label = local === 'exterior'
          ? `exterior ring of polygon ${polyNo}`
          : `interior ring ${this.holes.length + 1} of polygon ${polyNo}`;
        const err = checkRing(ring, label);
        if (err !== null) return this.reject(err);
        if (local === 'exterior') this.exterior = ring;
        else this.holes.push(ring);
        return;
      }
      case 'Polygon':
      case 'PolygonPatch':
        if (!this.poly) return;
        this.poly = false;
        if (this.exterior === null) return this.reject(`polygon ${f.polygons.length + 1} has no exterior ring`);
        f.polygons.push([this.exterior, ...this.holes]);
        this.exterior = null;
        this.holes = [];
        return;
    }
  }

  private resetGeometry(): void {
    this.poly = false;
    this.exterior = null;
    this.holes = [];
    this.ring = null;
    this.member = null;
    this.seg = null;
  }

  private closeUnitProperty(f: FeatureState): void {
    if (this.unit !== null) this.propUnits.push(this.unit);
    this.unit = null;
    for (const u of this.propUnits) {
      if (u.hoved === null) u.hoved = this.propHoved;
      f.units.push(u);
    }
    this.propUnits = [];
  }

  private closeTeig(f: FeatureState): void {
    const end = this.sax.position;
    if (f.raw.length > end - f.rawStart) f.raw = f.raw.slice(0, Math.max(0, end - f.rawStart));
    this.f = null;
    this.field = Field.None;
    this.section = Section.Other;
    this.unit = null;
    this.propUnits = [];
    this.resetGeometry();
    const reason = f.reject ?? this.validate(f);
    if (typeof reason === 'string') {
      // Only a reject is kept (in the rejects table): copy its excerpt out of the source piece.
      // A feature is consumed at once, so its excerpt may share the piece for that long.
      this.out.push({ kind: 'reject', position: f.position, reason: detach(reason), raw: detach(f.raw) });
    } else {
      this.out.push({ kind: 'feature', feature: reason });
    }
  }

  /** Returns the finished feature, or the reason it must be rejected. */
  private validate(f: FeatureState): TeigFeature | string {
    if (f.polygons.length === 0) return f.sawOmrade ? 'no geometry: område holds no polygon' : 'no geometry: the teig has no område';
    if (f.units.length === 0) return 'no matrikkelenhet';
    const lokalId = detach(f.lokalId || f.teigId || f.gmlId || '');
    if (!lokalId) return 'no identifier (lokalId, teigId or gml:id)';

    const found = unitsOfTeig(f.kommunenummer, f.units);
    if (typeof found === 'string') return found;
    const { teigKommune, units } = found;

    let storedAreaM2: number | null = null;
    if (f.area !== null && f.area !== '') {
      const v = Number(f.area);
      if (Number.isFinite(v)) storedAreaM2 = v;
    }

    return {
      position: f.position,
      lokalId,
      srid: f.crs!.srid,
      polygons: f.polygons,
      units,
      kommunenummer: teigKommune ?? units[0].kommunenummer,
      matrikkelnummerTekst: f.matrikkelnummerTekst ? detach(f.matrikkelnummerTekst) : null,
      storedAreaM2,
      raw: f.raw,
    };
  }
}

/**
 * Streams `Teig` features out of a GML document, one record per Teig as soon as its end
 * tag has been read. Bad features become `reject` records; a document that is not
 * well-formed XML or not UTF-8 throws an InputFormatError (the input is unusable: nothing
 * after that point can be trusted).
 */
export async function* readTeigFeatures(
  input: NodeJS.ReadableStream | AsyncIterable<Buffer | string>,
): AsyncGenerator<TeigRecord> {
  const parser = new TeigParser();
  let first = true;
  let declared: string | null = null;
  // A file that is not UTF-8 usually says what it is in its XML declaration.
  const decoder = new StrictUtf8Decoder('Teig GML', () =>
    declared && !/^utf-?8$/i.test(declared) ? `the XML declaration says encoding="${declared}"` : 'it looks like a single-byte encoding such as ISO-8859-1/Latin-1',
  );

  try {
    for await (const chunk of input as AsyncIterable<Buffer | Uint8Array | string>) {
      let text: string;
      if (typeof chunk === 'string') {
        text = first && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
      } else {
        if (first) {
          const head = Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(chunk.length, 200)).toString('latin1');
          declared = /^(?:\uFEFF|ï»¿)?<\?xml[^>]*?encoding\s*=\s*["']([\w.:-]+)["']/.exec(head)?.[1] ?? null;
        }
        text = decoder.decode(chunk);
      }
      first = false;
      for (let i = 0; i < text.length; i += PIECE) {
        parser.write(text.length <= PIECE ? text : text.slice(i, i + PIECE));
        if (parser.out.length > 0) yield* parser.out.splice(0);
      }
    }
    const tail = decoder.end();
    if (tail) parser.write(tail);
    parser.close();
  } catch (error) {
    // Whatever stopped the reader (saxes, the decoder, the input stream), a damaged zip entry
    // is reported as the damage; anything else as an InputFormatError with the position.
    throw await readFailure(error, { input, label: 'Teig GML', problem: 'is malformed or truncated', at: parser.where() });
  }
  if (parser.out.length > 0) yield* parser.out.splice(0);
}
