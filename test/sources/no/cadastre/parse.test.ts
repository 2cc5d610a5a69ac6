import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { readTeigFeatures, type TeigFeature, type TeigRecord } from '../../../../sources/no/cadastre/parse.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/no/teig/', import.meta.url));
const fixture = (name: string) => `${FIXTURES}${name}`;

async function collect(input: Parameters<typeof readTeigFeatures>[0]): Promise<TeigRecord[]> {
  const out: TeigRecord[] = [];
  for await (const record of readTeigFeatures(input)) out.push(record);
  return out;
}

const readFixture = (name: string, highWaterMark?: number) =>
  collect(createReadStream(fixture(name), highWaterMark ? { highWaterMark } : undefined));

function features(records: TeigRecord[]): TeigFeature[] {
  return records.flatMap((r) => (r.kind === 'feature' ? [r.feature] : []));
}

function byId(records: TeigRecord[], lokalId: string): TeigFeature {
  const found = features(records).find((f) => f.lokalId === lokalId);
  if (!found) throw new Error(`feature ${lokalId} not found`);
  return found;
}

function expectRing(actual: number[], expected: number[]): void {
  expect(actual.length).toBe(expected.length);
  expected.forEach((v, i) => expect(actual[i], `coordinate ${i}`).toBeCloseTo(v, 6));
}

function rejectAt(records: TeigRecord[], position: number) {
  const r = records.find((x) => (x.kind === 'reject' ? x.position : x.feature.position) === position);
  if (!r || r.kind !== 'reject') throw new Error(`expected a reject at position ${position}, got ${JSON.stringify(r)}`);
  return r;
}

async function* strings(...parts: string[]): AsyncGenerator<string> {
  for (const p of parts) yield p;
}

describe('readTeigFeatures: Geonorge GML, EPSG:25833', () => {
  it('reads a plain teig with its unit, area, text and source excerpt', async () => {
    const records = await readFixture('oslo-25833.gml');
    expect(records.map((r) => r.kind)).toEqual(['feature', 'feature', 'feature', 'feature', 'feature', 'feature']);
    const f = byId(records, '1001');
    expect(f.position).toBe(1);
    expect(f.srid).toBe(25833);
    expect(f.kommunenummer).toBe('0301');
    expect(f.matrikkelnummerTekst).toBe('208/327');
    expect(f.storedAreaM2).toBe(812.4);
    expect(f.units).toEqual([
      {
        kommunenummer: '0301', gardsnummer: 208, bruksnummer: 327, festenummer: 0, seksjonsnummer: 0,
        cadastreId: '0301-208-327-0-0', isMainParcel: true,
      },
    ]);
    // Only område counts: the representasjonspunkt must not leak into the rings.
    expect(f.polygons).toHaveLength(1);
    expect(f.polygons[0]).toHaveLength(1);
    expectRing(f.polygons[0][0], [
      262500, 6649400, 262530, 6649400, 262530, 6649427.08, 262500, 6649427.08, 262500, 6649400,
    ]);
    expect(f.raw.startsWith('<app:Teig gml:id="teig.1001">')).toBe(true);
    expect(f.raw.endsWith('</app:Teig>')).toBe(true);
  });

  it('skips other feature types and numbers Teig elements only', async () => {
    const records = await readFixture('oslo-25833.gml');
    expect(features(records).map((f) => [f.position, f.lokalId])).toEqual([
      [1, '1001'], [2, '1002'], [3, '1003'], [4, '1004'], [5, '1005'], [6, 'teig.1006'],
    ]);
  });

  it('keeps holes as further rings after the exterior', async () => {
    const f = byId(await readFixture('oslo-25833.gml'), '1002');
    expect(f.polygons).toHaveLength(1);
    const [exterior, ...holes] = f.polygons[0];
    expect(holes).toHaveLength(1);
    expectRing(exterior, [262600, 6649500, 262660, 6649500, 262660, 6649560, 262600, 6649560, 262600, 6649500]);
    expectRing(holes[0], [262620, 6649520, 262620, 6649540, 262640, 6649540, 262640, 6649520, 262620, 6649520]);
    expect(f.storedAreaM2).toBe(3200);
  });

  it('lists every unit of a shared teig and marks the declared hovedteig', async () => {
    const f = byId(await readFixture('oslo-25833.gml'), '1003');
    expect(f.matrikkelnummerTekst).toBe('46/1,7');
    expect(f.units.map((u) => [u.cadastreId, u.isMainParcel])).toEqual([
      ['0301-46-1-0-0', false],
      ['0301-46-7-0-0', true],
    ]);
  });

  it('normalizes a section unit, inheriting the teig kommunenummer; first unit is main when none is declared', async () => {
    const f = byId(await readFixture('oslo-25833.gml'), '1004');
    expect(f.units).toHaveLength(1);
    expect(f.units[0].cadastreId).toBe('0301-208-327-0-12');
    expect(f.units[0].seksjonsnummer).toBe(12);
    expect(f.units[0].kommunenummer).toBe('0301');
    expect(f.units[0].isMainParcel).toBe(true);
    expect(f.storedAreaM2).toBeNull();
  });

  it('joins curve members into one ring without repeating joints, reads gml:pos rings and dedupes units', async () => {
    const f = byId(await readFixture('oslo-25833.gml'), '1005');
    expect(f.srid).toBe(25833);
    expect(f.polygons).toHaveLength(1);
    const [exterior, hole] = f.polygons[0];
    expectRing(exterior, [262400, 6649300, 262440, 6649300, 262440, 6649340, 262400, 6649340, 262400, 6649300]);
    expectRing(hole, [262410, 6649310, 262410, 6649320, 262420, 6649320, 262410, 6649310]);
    // `301` and `0301` name the same unit.
    expect(f.units).toEqual([
      {
        kommunenummer: '0301', gardsnummer: 210, bruksnummer: 3, festenummer: 0, seksjonsnummer: 0,
        cadastreId: '0301-210-3-0-0', isMainParcel: true,
      },
    ]);
  });

  it('reads a MultiSurface with an inherited srsName and 3D coordinates', async () => {
    const f = byId(await readFixture('oslo-25833.gml'), 'teig.1006');
    expect(f.srid).toBe(25833);
    expect(f.polygons).toHaveLength(2);
    expectRing(f.polygons[0][0], [262750, 6649650, 262760, 6649650, 262760, 6649660, 262750, 6649650]);
    expectRing(f.polygons[1][0], [262770, 6649670, 262780, 6649670, 262780, 6649680, 262770, 6649670]);
    expect(f.units.map((u) => [u.cadastreId, u.isMainParcel])).toEqual([['0301-211-1-5-0', false]]);
    expect(f.matrikkelnummerTekst).toBeNull();
  });

  it('gives identical records whatever the chunk size (tiny chunks split tags and the multi-byte å)', async () => {
    const whole = await collect(Readable.from([readFileSync(fixture('oslo-25833.gml'))]));
    const tiny = await readFixture('oslo-25833.gml', 7);
    expect(tiny).toEqual(whole);
    expect(whole).toEqual(await readFixture('oslo-25833.gml'));
  });

  it('accepts an async iterable of strings', async () => {
    const text = readFileSync(fixture('oslo-25833.gml'), 'utf8');
    const records = await collect(strings(text.slice(0, 3000), text.slice(3000)));
    expect(features(records).map((f) => f.lokalId)).toEqual(['1001', '1002', '1003', '1004', '1005', 'teig.1006']);
  });

  it('yields a feature before the rest of the input has been read', async () => {
    const text = readFileSync(fixture('oslo-25833.gml'), 'utf8');
    const cut = text.indexOf('</gml:featureMember>') + '</gml:featureMember>'.length;
    let received = 0;
    let receivedBeforeSecondChunk = -1;
    async function* input() {
      yield text.slice(0, cut);
      receivedBeforeSecondChunk = received;
      yield text.slice(cut);
    }
    for await (const r of readTeigFeatures(input())) if (r.kind === 'feature') received++;
    expect(receivedBeforeSecondChunk).toBe(1);
    expect(received).toBe(6);
  });
});

describe('readTeigFeatures: other CRSs and containers', () => {
  it('swaps EPSG::4258 latitude-first coordinates to lon,lat and leaves EPSG:4258 lon,lat alone', async () => {
    const records = await readFixture('oslo-4258-latlon.gml');
    const urn = byId(records, '2001');
    expect(urn.srid).toBe(4258);
    expectRing(urn.polygons[0][0], [
      10.7522, 59.9139, 10.7527, 59.9139, 10.7527, 59.91415, 10.7522, 59.91415, 10.7522, 59.9139,
    ]);
    const short = byId(records, '2002');
    expect(short.srid).toBe(4258);
    expectRing(short.polygons[0][0], [10.76, 59.92, 10.7604, 59.92, 10.7604, 59.9202, 10.76, 59.92]);
    expect(short.units.map((u) => u.cadastreId)).toEqual(['0301-207-89-0-0']);
  });

  it('reads wfs:FeatureCollection members with any prefix, teigId ids, envelope CRS and hovedområde', async () => {
    const records = await readFixture('wfs-25832.gml');
    expect(records).toHaveLength(2);
    const [a, b] = features(records);
    expect(a.lokalId).toBe('3001');
    expect(a.srid).toBe(25832);
    expectRing(a.polygons[0][0], [
      597900.1, 6643100.2, 597940.1, 6643100.2, 597940.1, 6643130.2, 597900.1, 6643130.2, 597900.1, 6643100.2,
    ]);
    expect(a.units).toEqual([
      {
        kommunenummer: '0301', gardsnummer: 208, bruksnummer: 330, festenummer: 0, seksjonsnummer: 0,
        cadastreId: '0301-208-330-0-0', isMainParcel: true,
      },
    ]);
    expect(b.lokalId).toBe('3002');
    expect(b.position).toBe(2);
    expect(b.srid).toBe(25832);
    expect(b.units.map((u) => u.cadastreId)).toEqual(['0301-208-331-0-0']);
  });

  it('reads exponent and signed number forms the same as plain decimals', async () => {
    const text = readFileSync(fixture('oslo-25833.gml'), 'utf8').replace(
      '262500.00 6649400.00 262530.00 6649400.00 262530.00',
      '2.625E5 +6649400 262530.000000000000001 6.6494e6 262530.00',
    );
    const f = byId(await collect(strings(text)), '1001');
    expectRing(f.polygons[0][0], [
      262500, 6649400, 262530, 6649400, 262530, 6649427.08, 262500, 6649427.08, 262500, 6649400,
    ]);
  });

  it('yields nothing for a well-formed document without Teig elements', async () => {
    const doc = '<?xml version="1.0"?><gml:FeatureCollection xmlns:gml="http://www.opengis.net/gml/3.2"><gml:boundedBy/></gml:FeatureCollection>';
    expect(await collect(strings(doc))).toEqual([]);
  });
});

describe('readTeigFeatures: bad features become rejects', () => {
  it('rejects each broken feature with a reason and carries on', async () => {
    const records = await readFixture('rejects.gml');
    expect(records.map((r) => r.kind)).toEqual([
      'reject', 'reject', 'reject', 'reject', 'reject', 'reject', 'reject', 'reject', 'feature',
    ]);
    expect(rejectAt(records, 1).reason).toMatch(/EPSG:9999 is not a supported coordinate reference system/);
    expect(rejectAt(records, 2).reason).toBe(
      'exterior ring of polygon 1 is not closed (first point 262500 6649400 ≠ last point 262500 6649401)',
    );
    expect(rejectAt(records, 3).reason).toBe('coordinate list has 9 numbers, not a multiple of srsDimension 2');
    expect(rejectAt(records, 4).reason).toBe('non-numeric coordinate "66494l0"');
    expect(rejectAt(records, 5).reason).toBe('no geometry: the teig has no område');
    expect(rejectAt(records, 6).reason).toBe('no matrikkelenhet');
    expect(rejectAt(records, 7).reason).toBe('matrikkelenhet 1: gardsnummer "2O8" is not a whole number');
    expect(rejectAt(records, 8).reason).toBe('exterior ring of polygon 1 has 3 positions; a closed ring needs at least 4');
  });

  it('gives each reject a bounded excerpt of its own element', async () => {
    const records = await readFixture('rejects.gml');
    const r = rejectAt(records, 7);
    expect(r.raw.startsWith('<app:Teig gml:id="teig.4007">')).toBe(true);
    expect(r.raw.endsWith('</app:Teig>')).toBe(true);
    expect(r.raw).toContain('<app:gardsnummer>2O8</app:gardsnummer>');
    expect(r.raw).not.toContain('teig.4008');
  });

  it('keeps a self-intersecting polygon as a feature', async () => {
    const f = byId(await readFixture('rejects.gml'), '4009');
    expect(f.position).toBe(9);
    expectRing(f.polygons[0][0], [262500, 6649400, 262510, 6649410, 262510, 6649400, 262500, 6649410, 262500, 6649400]);
    expect(f.units[0].cadastreId).toBe('0301-300-9-0-0');
  });
});

describe('readTeigFeatures: unreadable documents throw', () => {
  it('throws on a truncated file, naming the position, after yielding the complete features', async () => {
    const seen: string[] = [];
    const run = async () => {
      for await (const r of readTeigFeatures(createReadStream(fixture('truncated.gml')))) {
        if (r.kind === 'feature') seen.push(r.feature.lokalId);
      }
    };
    await expect(run()).rejects.toThrow(/malformed or truncated GML at line \d+, column \d+: unclosed tag/i);
    expect(seen).toEqual(['1001']);
  });

  it('throws on a tag broken mid-document', async () => {
    const doc = '<?xml version="1.0"?>\n<gml:FeatureCollection xmlns:gml="http://www.opengis.net/gml/3.2">\n<gml:featureMember><app:Teig</gml:featureMember>';
    await expect(collect(strings(doc))).rejects.toThrow(/malformed or truncated GML at line 3/i);
  });

  it('throws a clear encoding error on Latin-1 bytes', async () => {
    const text = readFileSync(fixture('oslo-25833.gml'), 'utf8').replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
    const latin1 = Buffer.from(text, 'latin1'); // 'å' in område becomes the single byte 0xE5
    await expect(collect(Readable.from([latin1]))).rejects.toThrow(/not valid UTF-8.*ISO-8859-1/);
    const offset = latin1.indexOf(0xe5);
    await expect(collect(Readable.from([latin1]))).rejects.toThrow(`near byte ${offset}`);
  });
});

describe('readTeigFeatures: large streams', () => {
  const HEADER = `<?xml version="1.0" encoding="UTF-8"?>
<gml:FeatureCollection xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:app="http://skjema.geonorge.no/SOSI/produktspesifikasjon/Matrikkelen-Eiendomskart-Teig/20211101">\n`;

  function teigXml(i: number): string {
    // A 60-vertex ring: roughly the size of a real urban teig.
    const e0 = 262000 + (i % 100) * 50;
    const n0 = 6640000 + Math.floor(i / 100) * 50;
    const pts: string[] = [];
    for (let k = 0; k < 60; k++) {
      const a = (k / 60) * 2 * Math.PI;
      pts.push(`${(e0 + 20 * Math.cos(a)).toFixed(2)} ${(n0 + 20 * Math.sin(a)).toFixed(2)}`);
    }
    pts.push(pts[0]);
    return `<gml:featureMember><app:Teig gml:id="teig.${i}"><app:identifikasjon><app:Identifikasjon><app:lokalId>${i}</app:lokalId></app:Identifikasjon></app:identifikasjon><app:kommunenummer>0301</app:kommunenummer><app:område><gml:Polygon gml:id="teig.${i}.p" srsName="urn:ogc:def:crs:EPSG::25833" srsDimension="2"><gml:exterior><gml:LinearRing><gml:posList>${pts.join(' ')}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></app:område><app:matrikkelenhet><app:Matrikkelenhet><app:kommunenummer>0301</app:kommunenummer><app:gardsnummer>${1 + (i % 300)}</app:gardsnummer><app:bruksnummer>${i % 997}</app:bruksnummer><app:festenummer>0</app:festenummer><app:seksjonsnummer>0</app:seksjonsnummer><app:hovedteig>true</app:hovedteig></app:Matrikkelenhet></app:matrikkelenhet><app:matrikkelnummerTekst>${1 + (i % 300)}/${i % 997}</app:matrikkelnummerTekst><app:teigareal><app:Areal><app:lagretBeregnetAreal>1254.6</app:lagretBeregnetAreal></app:Areal></app:teigareal></app:Teig></gml:featureMember>\n`;
  }

  function* document(count: number): Generator<Buffer> {
    yield Buffer.from(HEADER);
    for (let i = 1; i <= count; i++) yield Buffer.from(teigXml(i));
    yield Buffer.from('</gml:FeatureCollection>\n');
  }

  function gc(): () => void {
    const existing = (globalThis as { gc?: () => void }).gc;
    if (existing) return existing;
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  }

  it('streams 20,000 features with flat memory', async () => {
    const COUNT = 20_000;
    const runGc = gc();
    runGc();
    const before = process.memoryUsage().heapUsed;
    let maxGrowth = 0;
    let count = 0;
    let last: TeigFeature | null = null;
    for await (const r of readTeigFeatures(Readable.from(document(COUNT)))) {
      if (r.kind !== 'feature') throw new Error(`unexpected reject: ${r.reason}`);
      count++;
      last = r.feature;
      if (count % 2000 === 0) {
        runGc();
        maxGrowth = Math.max(maxGrowth, process.memoryUsage().heapUsed - before);
      }
    }
    expect(count).toBe(COUNT);
    expect(last!.lokalId).toBe(String(COUNT));
    expect(last!.position).toBe(COUNT);
    expect(last!.units[0].cadastreId).toBe(`0301-${1 + (COUNT % 300)}-${COUNT % 997}-0-0`);
    expect(last!.polygons[0][0]).toHaveLength(122);
    expect(last!.raw.length).toBe(2000);
    expect(maxGrowth).toBeLessThan(64 * 1024 * 1024);
  });
});
