/**
 * The matrikkel-detail records of one sample parcel, in the exchange format of
 * schema/exchange/no-matrikkel-detail.schema.json: one `bygning` per building (with floors),
 * one `bruksenhet` per unit, and one `seksjon` per section of a sectioned parcel. Built from
 * sampleBuildingsOf, so they describe exactly the buildings and units of the building GML.
 */
import seedrandom from 'seedrandom';
import { parseCadastreId } from '../../sources/no/cadastre-id.js';
import { isFeatured } from '../municipalities.js';
import type { Rng } from '../random.js';
import type { SampleParcel } from '../types.js';
import { sampleBuildingsOf, type SampleBuilding, type SampleBuildingUnit } from './buildings.js';

type Matrikkelnummer = { kommunenummer: string; gardsnummer: number; bruksnummer: number; festenummer: number; seksjonsnummer: number };

function matrikkelnummer(cadastreId: string): Matrikkelnummer {
  const { kommunenummer, gardsnummer, bruksnummer, festenummer, seksjonsnummer } = parseCadastreId(cadastreId);
  return { kommunenummer, gardsnummer, bruksnummer, festenummer, seksjonsnummer };
}

/** The register's grouping of a bygningstype code. */
function usageGroup(typeCode: string): string {
  const code = Number(typeCode);
  if (code >= 161 && code <= 172) return 'FRITID';
  if (code >= 181 && code <= 183) return 'ANNET';
  if (code < 200) return 'BOLIG';
  if (code >= 241 && code <= 249) return 'LANDBRUK';
  if (code < 600) return code >= 400 && code < 500 ? 'ANNET' : 'NAERING';
  if (code < 900) return 'OFFENTLIG';
  return 'ANNET';
}

const HEATED = new Set(['BOLIG', 'FRITID', 'NAERING', 'OFFENTLIG']);

function bygningRecord(parcel: SampleParcel, b: SampleBuilding, rng: Rng): Record<string, unknown> {
  const group = usageGroup(b.typeCode);
  const heated = HEATED.has(group);
  const urban = b.floors >= 3 || isFeatured(parcel.kommunenummer);
  const dwellings = b.units.filter((u) => u.useType === 'BOLIG').length;
  const residential = b.units.filter((u) => u.useType === 'BOLIG' || u.useType === 'FRITID').reduce((sum, u) => sum + u.usableAreaM2, 0);
  const energy: string[] = [];
  const heating: string[] = [];
  if (heated) {
    energy.push('ELEKTRISITET');
    heating.push('ELEKTRISK');
    if (urban && rng() < 0.4) {
      energy.push('FJERNVARME');
      heating.push('SENTRALVARME');
    }
    if (rng() < 0.3) energy.push('VARMEPUMPE');
    if (!urban && rng() < 0.3) energy.push('BIOBRENSEL');
    if ((b.builtYear ?? 2025) >= 1990 && rng() < 0.35) heating.push('GULVVARME');
  }
  const water = !heated ? null : urban || rng() < 0.7 ? 'OFFENTLIG_VANNVERK' : rng() < 0.65 ? 'PRIVAT_BRONN' : 'PRIVAT_VANNVERK';
  const sewerage = water === null ? null : water === 'OFFENTLIG_VANNVERK' ? 'OFFENTLIG_KLOAKK' : 'PRIVAT_KLOAKK';
  const ground = Math.round((3 + rng() * 250) * 10) / 10;
  const height = Math.round((b.floors * 3 + 1 + rng() * 2) * 10) / 10;
  const perFloor = Math.round(b.usableAreaM2 / Math.max(1, b.floors));
  const floors = Array.from({ length: b.floors }, (_, i) => {
    const onFloor = b.units.filter((u) => u.floor === i + 1);
    return {
      etasjeplan: 'H',
      etasjenummer: i + 1,
      bruksarealTotalt: perFloor,
      antallRom: onFloor.reduce((sum, u) => sum + u.roomCount, 0),
      antallBoenheter: onFloor.filter((u) => u.useType === 'BOLIG').length,
    };
  });
  if (group === 'BOLIG' && b.floors <= 2 && rng() < 0.35) {
    floors.unshift({ etasjeplan: 'K', etasjenummer: 1, bruksarealTotalt: Math.round(b.footprintM2 * 0.8), antallRom: 0, antallBoenheter: 0 });
  }
  const year = b.builtYear;
  return {
    objekt: 'bygning',
    bygningsnummer: String(b.buildingNumber),
    kommunenummer: parcel.kommunenummer,
    matrikkelenhet: matrikkelnummer(b.cadastreId),
    byggeaar: year,
    antallEtasjer: b.floors,
    bruttoarealTotalt: b.grossAreaM2,
    bruksarealTotalt: b.usableAreaM2,
    bruksarealTilBolig: Math.min(b.usableAreaM2, residential),
    bruksarealTilAnnet: Math.max(0, b.usableAreaM2 - residential),
    bebygdAreal: b.footprintM2,
    antallBoenheter: dwellings,
    harHeis: b.floors >= 4 || (b.floors === 3 && rng() < 0.3),
    vannforsyning: water,
    avlop: sewerage,
    energikilder: energy,
    oppvarming: heating,
    bruksgruppe: group,
    opprinnelse: year !== null && year < 1985 ? (rng() < 0.1 ? 'ETTERREGISTRERING' : 'MIGRERT') : 'ORDINAER_REGISTRERING',
    harKulturminne: b.hasCulturalHeritage,
    harSefrakminne: b.hasSefrak,
    hoyder: { grunnhoyde: ground, hoyestePunkt: Math.round((ground + height) * 10) / 10, hoydeOverTerreng: height },
    etasjer: floors,
  };
}

const UNIT_TYPE: Record<SampleBuildingUnit['useType'], string> = {
  BOLIG: 'BOLIG',
  FRITID: 'FRITIDSBOLIG',
  NAERING: 'ANNET_ENN_BOLIG',
  ANNET: 'UNUMMERERT_BRUKSENHET',
};

function bruksenhetRecord(parcel: SampleParcel, b: SampleBuilding, u: SampleBuildingUnit, rng: Rng): Record<string, unknown> {
  const dwelling = u.useType === 'BOLIG' || u.useType === 'FRITID';
  const rented = parcel.kind !== 'sectioned' && u.useType === 'BOLIG' && b.units.length >= 6;
  return {
    objekt: 'bruksenhet',
    bruksenhetId: String(u.bruksenhetId),
    bruksenhetsnummer: u.unitNumber,
    bygningsnummer: String(b.buildingNumber),
    matrikkelenhet: matrikkelnummer(u.cadastreId),
    etasjenummer: u.floor,
    bruksareal: u.usableAreaM2,
    bruttoareal: Math.round(u.usableAreaM2 * 1.12),
    primaerrom: dwelling ? Math.round(u.usableAreaM2 * 0.9) : null,
    bruksenhetstype: UNIT_TYPE[u.useType],
    antallRom: u.roomCount,
    antallBad: u.bathroomCount,
    antallWC: u.toiletCount,
    kjokkentilgang: dwelling ? 'EGET_KJOKKEN' : null,
    eierform: rented ? (rng() < 0.5 ? 'BORETTSLAG' : 'LEIE') : 'SELVEIER',
    energikarakter: null,
    skalUtga: false,
    adresseId: u.addressId === null ? null : String(u.addressId),
  };
}

/** Sections of a sectioned parcel, their shares in proportion to their units' areas. */
function seksjonRecords(parcel: SampleParcel, buildings: SampleBuilding[]): Record<string, unknown>[] {
  if (parcel.kind !== 'sectioned') return [];
  const unitOfSection = new Map<string, SampleBuildingUnit>();
  for (const b of buildings) for (const u of b.units) if (!unitOfSection.has(u.cadastreId)) unitOfSection.set(u.cadastreId, u);
  const sections = parcel.units.filter((unit) => unit.seksjonsnummer > 0);
  const weights = sections.map((section) => Math.max(1, Math.round(unitOfSection.get(section.cadastreId)?.usableAreaM2 ?? 50)));
  const total = weights.reduce((sum, w) => sum + w, 0);
  return sections.map((section, i) => ({
    objekt: 'seksjon',
    matrikkelenhet: matrikkelnummer(section.cadastreId),
    sameiebrok: { teller: weights[i], nevner: total },
    formaal: unitOfSection.get(section.cadastreId)?.useType === 'NAERING' ? 'NAERING' : 'BOLIG',
  }));
}

export function detailRecordsOf(parcel: SampleParcel, seedHash: number): Record<string, unknown>[] {
  const buildings = sampleBuildingsOf(parcel, seedHash);
  const records: Record<string, unknown>[] = [];
  for (const b of buildings) {
    const rng: Rng = seedrandom.alea(`details/${seedHash}/${b.buildingNumber}`);
    records.push(bygningRecord(parcel, b, rng));
    for (const u of b.units) records.push(bruksenhetRecord(parcel, b, u, rng));
  }
  records.push(...seksjonRecords(parcel, buildings));
  return records;
}
