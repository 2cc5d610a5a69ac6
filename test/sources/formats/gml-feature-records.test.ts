import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hashFeatureRecords, keepFeatures, type FeatureLayout } from '../../../sources/formats/gml-feature-records.js';
import { LineSet, type HashedLine } from '../../../sources/formats/line-records.js';
import { readBygningElements } from '../../../sources/formats/bygning-gml.js';
import { readTeigFeatures, type TeigRecord } from '../../../sources/no/cadastre/parse.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/no/', import.meta.url));
const fixture = (name: string) => readFileSync(`${FIXTURES}${name}`);

/** `bytes` as a stream of chunks of `size` bytes, so tags and features straddle chunk boundaries. */
const chunked = (bytes: Buffer, size: number) => {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
};

async function hashes(bytes: Buffer, element: string, size = 7): Promise<{ hashed: HashedLine[]; layout: FeatureLayout }> {
  const layout: FeatureLayout = { regular: true };
  const hashed: HashedLine[] = [];
  for await (const batch of hashFeatureRecords(chunked(bytes, size), { element }, layout)) hashed.push(...batch);
  return { hashed, layout };
}

async function teigRecords(input: AsyncIterable<Buffer>): Promise<TeigRecord[]> {
  const out: TeigRecord[] = [];
  for await (const record of readTeigFeatures(input)) out.push(record);
  return out;
}
const positionOf = (record: TeigRecord) => (record.kind === 'feature' ? record.feature.position : record.position);

/** A Teig collection the way Geonorge writes one: one feature per featureMember, nothing else between. */
const teig = (id: string, east: number, options: { srsName?: string } = {}) =>
  `<gml:featureMember><app:Teig gml:id="teig.${id}">
  <app:identifikasjon><app:Identifikasjon><app:lokalId>${id}</app:lokalId></app:Identifikasjon></app:identifikasjon>
  <app:kommunenummer>0301</app:kommunenummer>
  <app:område><gml:Polygon gml:id="teig.${id}.p"${options.srsName ? ` srsName="${options.srsName}"` : ''}><gml:exterior><gml:LinearRing><gml:posList>${east} 6649400 ${east + 30} 6649400 ${east + 30} 6649430 ${east} 6649430 ${east} 6649400</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></app:område>
  <app:matrikkelenhet><app:Matrikkelenhet><app:kommunenummer>0301</app:kommunenummer><app:gardsnummer>1</app:gardsnummer><app:bruksnummer>${id}</app:bruksnummer><app:festenummer>0</app:festenummer><app:seksjonsnummer>0</app:seksjonsnummer><app:hovedteig>true</app:hovedteig></app:Matrikkelenhet></app:matrikkelenhet>
</app:Teig></gml:featureMember>
`;
const collection = (features: string[], options: { timeStamp?: string; srsName?: string } = {}) =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<gml:FeatureCollection xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:app="urn:teig" timeStamp="${options.timeStamp ?? '2026-11-25T02:00:00'}">\n` +
      `<gml:boundedBy><gml:Envelope srsName="${options.srsName ?? 'urn:ogc:def:crs:EPSG::25833'}"><gml:lowerCorner>0 0</gml:lowerCorner><gml:upperCorner>1 1</gml:upperCorner></gml:Envelope></gml:boundedBy>\n` +
      `${features.join('')}</gml:FeatureCollection>\n`,
  );

describe('hashFeatureRecords', () => {
  it('numbers the features as the Teig and building readers number their positions, however the file is chunked', async () => {
    for (const name of ['teig/oslo-25833.gml', 'teig/rejects.gml', 'teig/oslo-4258-latlon.gml']) {
      const bytes = fixture(name);
      const parsed = (await teigRecords(chunked(bytes, 64 * 1024))).map(positionOf);
      const { hashed } = await hashes(bytes, 'Teig');
      expect(hashed.map((record) => record.number), name).toEqual(parsed);
      expect((await hashes(bytes, 'Teig', 64 * 1024)).hashed, name).toEqual(hashed);
    }
    for (const name of ['building/oslo-25833.gml', 'building/rejects.gml']) {
      const bytes = fixture(name);
      const parsed: number[] = [];
      for await (const elements of readBygningElements(chunked(bytes, 64 * 1024))) parsed.push(...elements.map((element) => element.position));
      expect((await hashes(bytes, 'Bygning', 3)).hashed.map((record) => record.number), name).toEqual(parsed);
    }
  });

  it('takes no tag inside a comment or CDATA for a feature, and keeps a nested one of the same name inside its feature', async () => {
    const text = Buffer.from(
      '<c><!-- <app:Teig> --><m><app:Teig a=">"><x><![CDATA[</app:Teig>]]></x><app:Teig/><app:Teig><y/></app:Teig></app:Teig></m>' +
        '<m><Teig/></m><m><other:Teig><other:Teigdel>2</other:Teigdel></other:Teig></m><m><app:Teiger/></m></c>',
    );
    const { hashed } = await hashes(text, 'Teig', 5);
    expect(hashed.map((record) => record.number)).toEqual([1, 2, 3]);
  });

  it('gives an unchanged feature the same hash wherever it stands and whatever the collection\'s timeStamp, and every feature a new one when the inherited CRS changes', async () => {
    const before = (await hashes(collection([teig('1', 100), teig('2', 200), teig('3', 300)]), 'Teig')).hashed;
    const night = (await hashes(collection([teig('0', 0), teig('1', 100), teig('3', 300)], { timeStamp: '2026-11-26T02:00:00' }), 'Teig')).hashed;
    expect(night.map((record) => record.hash)).toEqual([expect.not.stringMatching(before[0].hash), before[0].hash, before[2].hash]);
    const otherCrs = (await hashes(collection([teig('1', 100)], { srsName: 'urn:ogc:def:crs:EPSG::25832' }), 'Teig')).hashed;
    expect(otherCrs[0].hash).not.toBe(before[0].hash);
  });

  it('ends a feature at its own closing tag, not where its name stands in an attribute, in text or inside another name, nor before a `!` or `?` of its text', async () => {
    const tricky = (id: string) =>
      `<gml:featureMember><app:Teig gml:id="teig.${id}">\n` +
      `  <app:merknad href="https://example.org/?type=app:Teig&amp;id=${id}">Hva er app:Teig? En teig!</app:merknad>\n` +
      `  <xapp:Teig xmlns:xapp="urn:x">${id}</xapp:Teig><app:Teigdel>${id}</app:Teigdel><app:Teig-del/>\n` +
      `</app:Teig></gml:featureMember>\n`;
    const bytes = collection([tricky('1'), tricky('2'), tricky('3')]);
    const text = bytes.toString('latin1');
    const header = text.slice(0, text.indexOf('<app:Teig '));
    const trailer = text.slice(text.lastIndexOf('</app:Teig>') + '</app:Teig>'.length);
    const second = tricky('2').slice('<gml:featureMember>'.length, -'</gml:featureMember>\n'.length);
    for (const size of [7, 64 * 1024]) {
      const { hashed, layout } = await hashes(bytes, 'Teig', size);
      expect(hashed.map((record) => record.number), `chunks of ${size}`).toEqual([1, 2, 3]);
      expect(layout.regular).toBe(true);
      const kept: Buffer[] = [];
      for await (const chunk of keepFeatures(chunked(bytes, size), { element: 'Teig', keep: (number) => number === 2 })) kept.push(chunk);
      expect(Buffer.concat(kept).toString('latin1'), `chunks of ${size}`).toBe(header + second + trailer);
    }
  });

  it('finds a collection filterable only when bare wrapper tags (and comments) stand between its features', async () => {
    expect((await hashes(collection([teig('1', 100), '<!-- a comment -->', teig('2', 200)]), 'Teig')).layout.regular).toBe(true);
    // Another feature type between two Teig, or a wrapper with attributes: a filtered file would lose what they state.
    expect((await hashes(fixture('teig/oslo-25833.gml'), 'Teig')).layout.regular).toBe(false);
    const attributed = collection([teig('1', 100), teig('2', 200)]).toString().replace('</gml:featureMember>\n<gml:featureMember>', '</gml:featureMember>\n<gml:featureMember srsName="urn:ogc:def:crs:EPSG::4258">');
    expect((await hashes(Buffer.from(attributed), 'Teig')).layout.regular).toBe(false);
  });
});

describe('keepFeatures', () => {
  it('refuses a feature that runs on past 64 MiB without closing, naming it, instead of holding the rest of the file', async () => {
    const opening = collection([teig('1', 100)]).toString('latin1').replace('</gml:FeatureCollection>\n', '');
    const coordinates = Buffer.from('100 6649400 '.repeat(87_382)); // about 1 MiB
    async function* unclosed() {
      yield Buffer.from(`${opening}<gml:featureMember><app:Teig gml:id="teig.2"><app:område><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>`, 'latin1');
      for (let mib = 0; mib < 80; mib++) yield coordinates;
    }
    const read = async () => {
      for await (const batch of hashFeatureRecords(Readable.from(unclosed()), { element: 'Teig' }, { regular: true })) void batch;
    };
    await expect(read()).rejects.toThrow(/^Teig feature 2 runs on past 64 MiB without closing/);
  });

  it('gives the parser the kept features, which read as they do in the whole file once their positions are mapped back', async () => {
    const bytes = collection([teig('1', 100), teig('2', 200, { srsName: 'urn:ogc:def:crs:EPSG::25832' }), teig('3', 300), teig('4', 400)]);
    const whole = await teigRecords(chunked(bytes, 64 * 1024));
    const kept = new LineSet();
    kept.add(2);
    kept.add(4);
    const filePosition = kept.nthInOrder();
    const filtered = await teigRecords(keepFeatures(chunked(bytes, 11), { element: 'Teig', keep: (number) => kept.has(number) }));
    const mapped = filtered.map((record) => (record.kind === 'feature' ? { ...record, feature: { ...record.feature, position: filePosition(record.feature.position) } } : record));
    expect(mapped).toEqual([whole[1], whole[3]]);
  });
});
