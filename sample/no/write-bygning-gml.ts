/**
 * Serialises the sample's buildings (sampleBuildingsOf) as Matrikkelen Bygning GML: a
 * gml:FeatureCollection of app:Bygning building points in EPSG:25833, each with the
 * matrikkelenheter it stands on, its bruksenheter and its status history.
 */
import { parseCadastreId } from '../../sources/no/cadastre-id.js';
import type { SampleParcel } from '../types.js';
import { sampleBuildingsOf, type SampleBuilding } from './buildings.js';

export const BYGNING_GML_NAME = 'Basisdata_0000_Norge_25833_MatrikkelenBygning_GML';
export const BYGNING_GML_ENTRY = `${BYGNING_GML_NAME}.gml`;

const NAMESPACE = 'http://skjema.geonorge.no/SOSI/produktspesifikasjon/Matrikkelen-Bygningspunkt/20211101';
const NAVNEROM = 'https://data.geonorge.no/sosi/matrikkelen/bygning';
const SRS_NAME = 'urn:ogc:def:crs:EPSG::25833';

const HEADER =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  `<gml:FeatureCollection xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:app="${NAMESPACE}" gml:id="MatrikkelenBygning">\n`;
const FOOTER = '</gml:FeatureCollection>\n';

function matrikkelenhetXml(cadastreId: string, matrikkelenhetId: number): string {
  const u = parseCadastreId(cadastreId);
  return (
    '  <app:matrikkelenhet><app:Matrikkelenhet>' +
    `<app:matrikkelenhetId>${matrikkelenhetId}</app:matrikkelenhetId>` +
    `<app:kommunenummer>${u.kommunenummer}</app:kommunenummer>` +
    `<app:gardsnummer>${u.gardsnummer}</app:gardsnummer>` +
    `<app:bruksnummer>${u.bruksnummer}</app:bruksnummer>` +
    `<app:festenummer>${u.festenummer}</app:festenummer>` +
    `<app:seksjonsnummer>${u.seksjonsnummer}</app:seksjonsnummer>` +
    '</app:Matrikkelenhet></app:matrikkelenhet>\n'
  );
}

export function bygningFeatureXml(parcel: SampleParcel, b: SampleBuilding): string {
  const id = `bygning.${b.bygningId}`;
  // The unit it stands on first, then every other unit its bruksenheter belong to (sections).
  const units = new Map<string, number>([[b.cadastreId, b.matrikkelenhetId]]);
  for (const unit of b.units) units.set(unit.cadastreId, unit.matrikkelenhetId);
  const last = b.statusHistory[b.statusHistory.length - 1];
  return (
    `<gml:featureMember><app:Bygning gml:id="${id}">\n` +
    `  <app:identifikasjon><app:Identifikasjon><app:lokalId>${b.bygningId}</app:lokalId><app:navnerom>${NAVNEROM}</app:navnerom><app:versjonId>1</app:versjonId></app:Identifikasjon></app:identifikasjon>\n` +
    `  <app:oppdateringsdato>${last.registeredDate}T12:00:00</app:oppdateringsdato>\n` +
    `  <app:bygningId>${b.bygningId}</app:bygningId>\n` +
    `  <app:bygningsnummer>${b.buildingNumber}</app:bygningsnummer>\n` +
    `  <app:bygningstype>${b.typeCode}</app:bygningstype>\n` +
    `  <app:bygningsstatus>${b.statusCode}</app:bygningsstatus>\n` +
    `  <app:harKulturminne>${b.hasCulturalHeritage}</app:harKulturminne>\n` +
    `  <app:harSefrakminne>${b.hasSefrak}</app:harSefrakminne>\n` +
    `  <app:kommunenummer>${parcel.kommunenummer}</app:kommunenummer>\n` +
    `  <app:kommunenavn>${parcel.kommunenavn}</app:kommunenavn>\n` +
    `  <app:representasjonspunkt><gml:Point gml:id="${id}.rp" srsName="${SRS_NAME}"><gml:pos>${b.point[0].toFixed(2)} ${b.point[1].toFixed(2)}</gml:pos></gml:Point></app:representasjonspunkt>\n` +
    [...units].map(([cadastreId, matrikkelenhetId]) => matrikkelenhetXml(cadastreId, matrikkelenhetId)).join('') +
    b.units
      .map(
        (u) =>
          '  <app:bruksenhet><app:Bruksenhet>' +
          `<app:bruksenhetId>${u.bruksenhetId}</app:bruksenhetId>` +
          `<app:bruksenhetsnummer>${u.unitNumber}</app:bruksenhetsnummer>` +
          (u.addressId === null ? '' : `<app:adresseId>${u.addressId}</app:adresseId>`) +
          `<app:matrikkelenhetId>${u.matrikkelenhetId}</app:matrikkelenhetId>` +
          '</app:Bruksenhet></app:bruksenhet>\n',
      )
      .join('') +
    b.statusHistory
      .map(
        (s) =>
          '  <app:bygningsstatusHistorikk><app:BygningsstatusHistorikk>' +
          `<app:bygningsstatus>${s.code}</app:bygningsstatus><app:dato>${s.changedDate}</app:dato><app:registrertDato>${s.registeredDate}</app:registrertDato>` +
          '</app:BygningsstatusHistorikk></app:bygningsstatusHistorikk>\n',
      )
      .join('') +
    '</app:Bygning></gml:featureMember>\n'
  );
}

/** The document in pieces; `stats.rows` counts the buildings written. */
export function* bygningGmlPieces(parcels: Iterable<SampleParcel>, seedHash: number, stats: { rows: number }): Generator<string> {
  yield HEADER;
  for (const parcel of parcels) {
    for (const building of sampleBuildingsOf(parcel, seedHash)) {
      stats.rows += 1;
      yield bygningFeatureXml(parcel, building);
    }
  }
  yield FOOTER;
}
