import { SaxesParser } from 'saxes';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEIG_GML_ENTRY, generateSample, sampleParcels } from '../../sample/generate.js';
import type { SampleParcel } from '../../sample/types.js';
import { readZip, tempDir } from './helpers.js';

const PARCELS = 300;
const SEED = 'gml';
const GML = 'http://www.opengis.net/gml/3.2';
const APP = 'http://skjema.geonorge.no/SOSI/produktspesifikasjon/Matrikkelen-Eiendomskart-Teig/20211101';

interface ParsedTeig {
  gmlId: string;
  children: string[];
  values: Record<string, string>;
  exterior: string;
  interiors: string[];
  pos: string;
  srsNames: string[];
  units: Record<string, string>[];
}

/** Reads the document with a namespace-aware XML parser (fails on anything not well-formed). */
function parseTeigs(xml: string): { root: { name: string; uri: string }; teigs: ParsedTeig[] } {
  const parser = new SaxesParser({ xmlns: true });
  const teigs: ParsedTeig[] = [];
  let root: { name: string; uri: string } | undefined;
  const stack: string[] = [];
  let current: ParsedTeig | undefined;
  let unit: Record<string, string> | undefined;
  let text = '';
  parser.on('opentag', (tag) => {
    if (!root) root = { name: tag.local, uri: tag.uri };
    stack.push(`${tag.uri === GML ? 'gml' : tag.uri === APP ? 'app' : '?'}:${tag.local}`);
    text = '';
    if (tag.uri === APP && tag.local === 'Teig') {
      current = { gmlId: String(tag.attributes['gml:id']?.value ?? ''), children: [], values: {}, exterior: '', interiors: [], pos: '', srsNames: [], units: [] };
    } else if (current && stack.length === 4) {
      current.children.push(tag.local);
    }
    if (current && tag.attributes['srsName']) current.srsNames.push(String(tag.attributes['srsName'].value));
    if (tag.uri === APP && tag.local === 'Matrikkelenhet') unit = {};
  });
  parser.on('text', (t) => (text += t));
  parser.on('closetag', (tag) => {
    const path = stack.join('/');
    stack.pop();
    if (!current) return;
    if (tag.uri === GML && tag.local === 'posList') {
      if (path.includes('gml:exterior')) current.exterior = text;
      else current.interiors.push(text);
    } else if (tag.uri === GML && tag.local === 'pos') current.pos = text;
    else if (unit && tag.uri === APP && tag.local !== 'Matrikkelenhet') unit[tag.local] = text;
    else if (tag.uri === APP && tag.local === 'Matrikkelenhet') {
      current.units.push(unit!);
      unit = undefined;
    } else if (tag.uri === APP && tag.local === 'Teig') {
      teigs.push(current);
      current = undefined;
    } else if (tag.uri === APP) current.values[tag.local] = text;
  });
  parser.write(xml).close();
  return { root: root!, teigs };
}

const posList = (ring: [number, number][]) => ring.map(([e, n]) => `${e.toFixed(2)} ${n.toFixed(2)}`).join(' ');

describe('teig GML (Matrikkelen Eiendomskart Teig)', () => {
  let xml: string;
  let parsed: ReturnType<typeof parseTeigs>;
  let truth: SampleParcel[];

  beforeAll(async () => {
    const result = await generateSample({ outDir: await tempDir('gml'), parcels: PARCELS, seed: SEED });
    xml = (await readZip(result.files.teigGmlZip)).get(TEIG_GML_ENTRY)!.toString('utf8');
    parsed = parseTeigs(xml);
    truth = [...sampleParcels({ parcels: PARCELS, seed: SEED, withAddresses: false })];
  });

  it('is a GML 3.2 FeatureCollection of app:Teig feature members', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<gml:FeatureCollection')).toBe(true);
    expect(parsed.root).toEqual({ name: 'FeatureCollection', uri: GML });
    expect(xml.match(/<gml:featureMember><app:Teig gml:id="teig\.\d+">/g)).toHaveLength(PARCELS);
    expect(parsed.teigs).toHaveLength(PARCELS);
    expect(parsed.teigs[0].gmlId).toBe('teig.1001');
    expect(parsed.teigs.at(-1)!.gmlId).toBe(`teig.${1000 + PARCELS}`);
  });

  it('orders each Teig like the Kartverket schema', () => {
    for (const teig of parsed.teigs) {
      const units = teig.children.filter((c) => c === 'matrikkelenhet').length;
      expect(units).toBeGreaterThan(0);
      expect(teig.children).toEqual([
        'identifikasjon', 'oppdateringsdato', 'kommunenummer', 'område', 'representasjonspunkt',
        ...Array(units).fill('matrikkelenhet'),
        'matrikkelnummerTekst', 'teigMedFlereMatrikkelenheter', 'teigareal', 'noyaktighetsklasseTeig', 'uuidTeig',
      ]);
      expect(teig.values.navnerom).toBe('https://data.geonorge.no/sosi/matrikkelen/teig');
      expect(teig.gmlId).toBe(`teig.${teig.values.lokalId}`);
      expect(teig.values.oppdateringsdato).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      expect(['Grønt', 'Gult', 'Rødt']).toContain(teig.values.noyaktighetsklasseTeig);
      expect(new Set(teig.srsNames)).toEqual(new Set(['urn:ogc:def:crs:EPSG::25833']));
    }
  });

  it('writes the truth coordinates east-north with two decimals, rings closed', () => {
    parsed.teigs.forEach((teig, i) => {
      const p = truth[i];
      expect(teig.values.lokalId).toBe(String(p.teigId));
      expect(teig.exterior).toBe(posList(p.exterior));
      expect(teig.interiors).toEqual(p.holes.map(posList));
      const numbers = teig.exterior.split(' ');
      expect(numbers.every((n) => /^-?\d+\.\d{2}$/.test(n))).toBe(true);
      expect(numbers.slice(0, 2)).toEqual(numbers.slice(-2));
      // east before north: UTM33 northings in Norway are 6.4–7.9 million, eastings far below
      expect(Number(numbers[1])).toBeGreaterThan(6_400_000);
      expect(Math.abs(Number(numbers[0]))).toBeLessThan(1_200_000);
      expect(teig.pos).toBe(`${p.representasjonspunkt[0].toFixed(2)} ${p.representasjonspunkt[1].toFixed(2)}`);
    });
  });

  it('describes the units on each teig, including the special cases', () => {
    let shared = 0, sectioned = 0, secondary = 0, leasehold = 0;
    parsed.teigs.forEach((teig, i) => {
      const p = truth[i];
      expect(teig.values.matrikkelnummerTekst).toBe(p.matrikkelnummerTekst);
      expect(teig.units.map((u) => `${u.kommunenummer}-${u.gardsnummer}-${u.bruksnummer}-${u.festenummer}-${u.seksjonsnummer}`)).toEqual(
        p.units.map((u) => u.cadastreId),
      );
      expect(teig.values.kommunenummer).toBe(teig.units[0].kommunenummer);
      if (teig.values.teigMedFlereMatrikkelenheter === 'true') {
        shared++;
        expect(teig.units).toHaveLength(2);
        expect(teig.values.matrikkelnummerTekst).toBe(`${teig.units[0].gardsnummer}/${teig.units[0].bruksnummer},${teig.units[1].bruksnummer}`);
      }
      if (teig.units.some((u) => u.seksjonsnummer !== '0')) {
        sectioned++;
        expect(teig.units.map((u) => Number(u.seksjonsnummer))).toEqual(teig.units.map((_, k) => k + 1));
      }
      if (teig.units[0].hovedteig === 'false') secondary++;
      if (teig.units[0].festenummer !== '0') {
        leasehold++;
        expect(teig.values.matrikkelnummerTekst).toBe(`${teig.units[0].gardsnummer}/${teig.units[0].bruksnummer}/${teig.units[0].festenummer}`);
      }
    });
    // 300 parcels hold a few of each
    expect(Math.min(shared, sectioned, secondary, leasehold)).toBeGreaterThan(0);
  });

  it('states the planar area of the polygon minus its hole', () => {
    parsed.teigs.forEach((teig, i) => {
      expect(teig.values.lagretBeregnetAreal).toMatch(/^\d+\.\d$/);
      expect(Number(teig.values.lagretBeregnetAreal)).toBeCloseTo(truth[i].area, 1);
    });
    // featured (urban) parcels are a few hundred to about two thousand m²
    const areas = truth.map((p) => p.area);
    expect(Math.min(...areas)).toBeGreaterThan(250);
    expect(Math.max(...areas)).toBeLessThan(2200);
  });

  it('gives every teig a unique id and UUID', () => {
    expect(new Set(parsed.teigs.map((t) => t.values.uuidTeig)).size).toBe(PARCELS);
    expect(new Set(parsed.teigs.map((t) => t.values.lokalId)).size).toBe(PARCELS);
  });
});
