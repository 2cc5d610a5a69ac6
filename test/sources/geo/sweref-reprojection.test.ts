import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GeoPackage } from '../../../sources/formats/geopackage.js';
import { transformTo } from '../../../sources/geo/reproject.js';
import { readOgcFeature } from '../../../sources/se/ogc-feature.js';
import { REAL_SE_MUNICIPALITIES_GPKG } from '../../support/real-data.js';

/** SWEREF 99 TM easting, northing across Sweden: Malmö, Göteborg, Stockholm, Östersund, Umeå, Kiruna, the far west and east. */
const POINTS: [number, number][] = [
  [374_000.12, 6_164_000.34], [319_000.5, 6_399_500.5], [674_032.357, 6_580_822.5], [470_000, 7_005_000],
  [759_500.25, 7_087_000.75], [760_000, 7_535_000], [266_000, 6_560_000], [915_000, 7_370_000], [335_110.696, 6_435_049.763],
];

/** PROJ's own answer. cs2cs with EPSG codes uses the authority axis order: EPSG:3006 is northing, easting in; EPSG:4326 latitude, longitude out. */
function cs2cs(points: [number, number][]): [number, number][] {
  const input = points.map(([east, north]) => `${north} ${east}`).join('\n');
  const output = execFileSync('cs2cs', ['-f', '%.12f', 'EPSG:3006', 'EPSG:4326'], { input, encoding: 'utf8' });
  return output.trim().split('\n').map((line) => {
    const [lat, lon] = line.trim().split(/\s+/).map(Number);
    return [lon, lat];
  });
}

const metresBetween = ([lon1, lat1]: [number, number], [lon2, lat2]: [number, number]) => {
  const mPerDegLat = 111_132.954 - 559.822 * Math.cos((2 * lat1 * Math.PI) / 180);
  const mPerDegLon = (Math.PI / 180) * 6_378_137 * Math.cos((lat1 * Math.PI) / 180);
  return Math.hypot((lon2 - lon1) * mPerDegLon, (lat2 - lat1) * mPerDegLat);
};

describe('SWEREF 99 TM reprojection', () => {
  it('matches PROJ cs2cs to within 1 cm across Sweden, both ways', () => {
    const expected = cs2cs(POINTS);
    const toWgs84 = transformTo(3006);
    const toSweref = transformTo(4326, 3006);
    POINTS.forEach((point, i) => {
      const ours = toWgs84(...point);
      expect(metresBetween(ours, expected[i]), `point ${point}`).toBeLessThan(0.01);
      // And back: the round trip through our inverse lands within a centimetre too.
      const [east, north] = toSweref(...expected[i]);
      expect(Math.hypot(east - point[0], north - point[1])).toBeLessThan(0.01);
    });
  });

  it('reads an OGC API feature in northing, easting order (Content-Crs EPSG:3006) as easting, northing', () => {
    // The real Fastighetsindelning Direkt answer for LILLA EDET ATTLERED 1:7, as Lantmäteriet's API serves it.
    const apiFeature = {
      type: 'Feature', id: '1',
      geometry: { type: 'Polygon', coordinates: [[[6435049.763, 335110.696], [6435110.323, 335124.568], [6435080.0, 335200.0], [6435049.763, 335110.696]]] },
      properties: { registerenhetsreferens: '909a6a6b-de2d-90ec-e040-ed8f66444c3f', kommunkod: '1462', kommunnamn: 'LILLA EDET', trakt: 'ATTLERED', block: '1', enhet: 7, etikett: '1:7' },
    };
    const feature = readOgcFeature(apiFeature, '<http://www.opengis.net/def/crs/EPSG/0/3006>');
    expect(feature.srid).toBe(3006);
    expect(feature.geometry.type === 'Polygon' && feature.geometry.polygons[0][0].slice(0, 2)).toEqual([335110.696, 6435049.763]);
    // Easting, northing puts it in Lilla Edet's extent (the blob header's envelope; the simplified
    // boundary itself runs 49 m south of it), while the unswapped pair lies outside Sweden.
    const gpkg = GeoPackage.open(REAL_SE_MUNICIPALITIES_GPKG);
    try {
      const layer = gpkg.layer('sveriges_kommuner_sf_simple', 3006);
      const lillaEdet = [...gpkg.features(layer, ['municipality_code'])].find((f) => f.attributes.municipality_code === '1462')!;
      const envelope = lillaEdet.header!.envelope!;
      const within = ([x, y]: number[], [minX, minY, maxX, maxY]: number[]) => x >= minX && x <= maxX && y >= minY && y <= maxY;
      expect(within([335110.696, 6435049.763], [envelope.minX, envelope.minY, envelope.maxX, envelope.maxY])).toBe(true);
      expect(within([6435049.763, 335110.696], layer.bbox!)).toBe(false);
    } finally {
      gpkg.close();
    }
    const [lon, lat] = transformTo(3006)(335110.696, 6435049.763);
    expect(lon).toBeGreaterThan(12);
    expect(lon).toBeLessThan(12.3);
    expect(lat).toBeGreaterThan(58);
    expect(lat).toBeLessThan(58.2);
  });

  it('keeps CRS84 answers as longitude, latitude and swaps an EPSG:4326 one', () => {
    const point = { geometry: { type: 'Point', coordinates: [12.1, 58.05] }, properties: {} };
    expect(readOgcFeature(point, null).geometry).toEqual({ type: 'Point', points: [12.1, 58.05] });
    expect(readOgcFeature(point, 'http://www.opengis.net/def/crs/OGC/1.3/CRS84').geometry).toEqual({ type: 'Point', points: [12.1, 58.05] });
    expect(readOgcFeature({ geometry: { type: 'Point', coordinates: [58.05, 12.1] } }, 'http://www.opengis.net/def/crs/EPSG/0/4326').geometry).toEqual({ type: 'Point', points: [12.1, 58.05] });
  });
});
