import { date, ref, registeredAt, timestamp } from './values.js';
import { COUNTRIES } from '../../lib/domain/country.js';
import {
  BUILDING_STATUSES,
  CERTIFICATION_SCHEMES,
  ENERGY_LABELS,
  HEATING_GRADES,
  KITCHEN_ACCESS,
  OWNERSHIP_FORMS,
  TENANT_CONFIDENCES,
  TRANSACTION_KINDS,
} from './code-lists.js';

/** The resources the API serves; /openapi.yaml publishes them as its components (docs/design.md). */

const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const strings = { type: 'array', items: str } as const;

// Fresh objects on every use: the YAML writer would turn shared ones into anchors and aliases.
const buildingStatus = () => ({
  type: 'string',
  enum: [...BUILDING_STATUSES],
  description: 'IN_USE and UNDER_CONSTRUCTION as the spec names them; every other status of the register under a name of its own',
});

// Fresh, like buildingStatus: a certificate's and a unit's label.
const energyLabel = () => ({ type: 'string', enum: [...ENERGY_LABELS], description: 'A (best) to G' });

// Every type a property is given: Norway's from the id, Sweden's from the register's objekttyp or the id's letter code.
const propertyType = () => ({
  type: 'string',
  enum: ['GRUNNEIENDOM', 'EIERSEKSJON', 'FESTEGRUNN', 'FASTIGHET', 'SAMFÄLLIGHET', 'GEMENSAMHETSANLÄGGNING', 'FISKEOMRÅDE', 'JÄRNVÄGSOMRÅDE', 'FISKELOTT', 'OSPECIFICERAT'],
  description:
    'Norway: GRUNNEIENDOM, EIERSEKSJON (a section: snr > 0), FESTEGRUNN (fnr > 0). Sweden: FASTIGHET; SAMFÄLLIGHET (block S), GEMENSAMHETSANLÄGGNING (GA), FISKEOMRÅDE (FA); JÄRNVÄGSOMRÅDE, FISKELOTT and OSPECIFICERAT by the area type of Lantmäteriet’s Fastighetsindelning.',
});

export const Property = {
  $id: 'Property',
  type: 'object',
  required: ['country', 'cadastreId', 'municipality', 'propertyType', 'addresses', 'links'],
  properties: {
    country: { type: 'string', examples: [...COUNTRIES] },
    cadastreId: { type: 'string', examples: ['0301-208-327-0-12', '0180_KUNGSHOLMEN_1_2'] },
    municipality: ref('Municipality'),
    areaM2: num,
    plotCount: int,
    propertyType: propertyType(),
    buildingCount: int,
    sectionCount: int,
    unitCount: int,
    totalUsableAreaM2: num,
    totalGrossAreaM2: num,
    builtOverAreaM2: num,
    builtOverAreaPct: num,
    averageFloors: num,
    taxationValue: ref('Money'),
    establishedDate: date,
    location: ref('Location'),
    addresses: { type: 'array', items: ref('Address') },
    links: { type: 'array', items: ref('Link') },
  },
} as const;

export const Owner = {
  $id: 'Owner',
  type: 'object',
  description: 'A rights holder, buyer or seller. A person’s name is present only with scope owners.read.',
  // Persons (a name, a birth year, what they own): answers holding it are not stored by caches.
  'x-personal-data': true,
  required: ['kind'],
  properties: {
    kind: { type: 'string', enum: ['ORGANIZATION', 'PERSON'] },
    organization: ref('Organization'),
    person: { type: 'object', properties: { name: str, birthYear: int } },
    share: ref('Share'),
    registeredAt,
    section: {
      type: 'object',
      description:
        'Only in /owners, for a holder of a section (eierseksjon): the section held and the holder’s share of that section; `share` is then the share of the whole property (the section’s share times this one).',
      required: ['sectionNumber', 'cadastreId'],
      properties: { sectionNumber: str, cadastreId: str, share: ref('Share') },
    },
  },
} as const;

export const Building = {
  $id: 'Building',
  type: 'object',
  required: ['buildingNumber'],
  properties: {
    buildingNumber: str,
    buildingType: { type: 'object', required: ['code'], properties: { code: str, name: str } },
    status: buildingStatus(),
    builtYear: int,
    floors: int,
    grossAreaM2: num,
    usableAreaM2: num,
    footprintM2: num,
    residentialUsableAreaM2: num,
    otherUsableAreaM2: num,
    builtOverAreaM2: num,
    builtOverAreaPct: num,
    dwellingUnitCount: int,
    hasLift: bool,
    waterSupply: str,
    sewerage: str,
    energySources: strings,
    heatingTypes: strings,
    usageGroup: str,
    registrationOrigin: str,
    isCulturalHeritage: bool,
    isSefrakRegistered: bool,
    elevation: { type: 'object', properties: { baseElevationM: num, highestPointM: num, heightAboveGroundM: num } },
    statusHistory: {
      type: 'array',
      items: { type: 'object', required: ['status'], properties: { status: buildingStatus(), changedDate: date, registeredDate: date, reason: str } },
    },
    floorDetails: {
      type: 'array',
      items: {
        type: 'object',
        required: ['floorNumber', 'floorKind'],
        properties: { floorNumber: int, floorKind: str, usableAreaM2: num, roomCount: int, dwellingUnitCount: int },
      },
    },
    location: ref('Location'),
  },
} as const;

export const Section = {
  $id: 'Section',
  type: 'object',
  required: ['sectionNumber', 'cadastreId', 'owners'],
  properties: { sectionNumber: str, cadastreId: str, share: ref('Share'), owners: { type: 'array', items: ref('Owner') }, useType: str },
} as const;

export const Unit = {
  $id: 'Unit',
  type: 'object',
  required: ['unitNumber', 'cadastreId'],
  properties: {
    unitNumber: str,
    buildingNumber: str,
    floor: int,
    usableAreaM2: num,
    grossAreaM2: num,
    primaryRoomAreaM2: num,
    useType: str,
    cadastreId: str,
    roomCount: int,
    bathroomCount: int,
    toiletCount: int,
    kitchenAccess: { type: 'string', enum: [...KITCHEN_ACCESS] },
    ownershipForm: { type: 'string', enum: [...OWNERSHIP_FORMS] },
    energyLabel: {
      ...energyLabel(),
      description:
        'A (best) to G: the label of the newest energy certificate still valid issued for the unit (Norway: Enova, by building, unit number and matrikkel unit) or for its building as a whole; absent when there is none.',
    },
    toBeDecommissioned: bool,
    address: ref('Address'),
  },
} as const;

export const Tenant = {
  $id: 'Tenant',
  type: 'object',
  // A sole proprietorship (ENK, enskild firma) is named after its owner, a person.
  'x-personal-data': true,
  required: ['organization', 'verification'],
  properties: {
    organization: ref('Organization'),
    verification: {
      type: 'object',
      required: ['source', 'confidence', 'lastSeenAt'],
      properties: { source: str, confidence: { type: 'string', enum: [...TENANT_CONFIDENCES] }, lastSeenAt: timestamp },
    },
    employees: int,
    naceCode: str,
    naceName: str,
    unitNumber: str,
    legalForm: str,
    foundedDate: date,
    movedInDate: date,
    website: str,
    isOwner: bool,
  },
} as const;

const transactionProperties = {
  id: str,
  registeredAt,
  kind: { type: 'string', enum: [...TRANSACTION_KINDS], description: 'SALE as the spec names it; the other ways a title changes hands, as the registers record them' },
  price: ref('Money'),
  share: ref('Share'),
  buyers: { type: 'array', items: ref('Owner') },
  sellers: { type: 'array', items: ref('Owner') },
  source: { type: 'string', examples: ['MAPPING_AUTHORITY_TINGLYSING'] },
} as const;

export const Transaction = {
  $id: 'Transaction',
  type: 'object',
  required: ['id', 'registeredAt', 'kind', 'buyers', 'sellers', 'source'],
  properties: transactionProperties,
} as const;

export const ComparableTransaction = {
  $id: 'ComparableTransaction',
  type: 'object',
  required: ['id', 'registeredAt', 'kind', 'buyers', 'sellers', 'source', 'distanceM', 'similarity'],
  properties: { ...transactionProperties, distanceM: num, pricePerM2: ref('Money'), similarity: num },
} as const;

export const Valuation = {
  $id: 'Valuation',
  type: 'object',
  required: ['value', 'method', 'valuedAt'],
  properties: {
    value: { type: 'object', required: ['estimate', 'low', 'high'], properties: { estimate: ref('Money'), low: ref('Money'), high: ref('Money') } },
    rent: {
      type: 'object',
      required: ['estimatePerM2Year', 'low', 'high'],
      properties: { estimatePerM2Year: ref('Money'), low: ref('Money'), high: ref('Money') },
    },
    method: { type: 'string', examples: ['AVM'] },
    valuedAt: timestamp,
  },
} as const;

export const EnergyCertificate = {
  $id: 'EnergyCertificate',
  type: 'object',
  required: ['source'],
  properties: {
    buildingNumber: str,
    label: energyLabel(),
    heatingGrade: { type: 'string', enum: [...HEATING_GRADES], description: 'Norway’s heating grade (oppvarmingskarakter), GREEN best' },
    issuedDate: date,
    validToDate: date,
    source: str,
  },
} as const;

export const Certification = {
  $id: 'Certification',
  type: 'object',
  required: ['scheme'],
  properties: { scheme: { type: 'string', enum: [...CERTIFICATION_SCHEMES] }, rating: str, certifiedDate: date, certifiedAreaM2: num, buildingNumber: str },
} as const;

export const ZoningPlan = {
  $id: 'ZoningPlan',
  type: 'object',
  required: ['planId', 'name', 'status', 'municipality', 'documents'],
  properties: {
    planId: str,
    name: str,
    status: { type: 'string', enum: ['PROPOSED', 'ADOPTED', 'REPEALED'] },
    purpose: str,
    adoptedDate: date,
    municipality: ref('Municipality'),
    documents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'kind', 'title', 'downloadUrl'],
        properties: {
          id: str,
          kind: str,
          title: str,
          publishedDate: date,
          downloadUrl: { type: 'string', format: 'uri', description: 'Signed and time-limited (query parameters exp and sig)' },
          mediaType: str,
        },
      },
    },
  },
} as const;

export const Utilization = {
  $id: 'Utilization',
  type: 'object',
  properties: {
    allowedBya: num,
    allowedBraM2: num,
    builtBraM2: num,
    remainingBraM2: num,
    builtBya: { type: 'number', description: "Percent of the plot the property's buildings cover (their footprints), to compare with allowedBya; given where the register has footprints (Sweden)" },
    basis: str,
  },
} as const;

export const BuildingPermit = {
  $id: 'BuildingPermit',
  type: 'object',
  required: ['caseId'],
  properties: {
    caseId: str,
    caseNumber: str,
    buildingNumber: str,
    kind: str,
    status: str,
    description: str,
    appliedDate: date,
    decidedDate: date,
  },
} as const;

export const CompanyProperty = {
  $id: 'CompanyProperty',
  type: 'object',
  description: 'A property the company holds title to.',
  required: ['country', 'cadastreId', 'municipality', 'propertyType', 'links'],
  properties: {
    country: str,
    cadastreId: str,
    municipality: ref('Municipality'),
    propertyType: propertyType(),
    share: ref('Share'),
    registeredAt,
    links: { type: 'array', items: ref('Link') },
  },
} as const;

export const LandAllocation = {
  $id: 'LandAllocation',
  type: 'object',
  required: ['id', 'title', 'municipality'],
  properties: {
    id: str,
    title: str,
    purpose: str,
    status: str,
    municipality: ref('Municipality'),
    grunnkretsCode: str,
    postalCode: str,
    areaM2: num,
    price: ref('Money'),
    announcedDate: date,
    deadlineDate: date,
    url: str,
    location: ref('Location'),
  },
} as const;

export const SubscriptionTarget = {
  $id: 'SubscriptionTarget',
  oneOf: [
    {
      type: 'object',
      title: 'Property target',
      required: ['kind', 'country', 'cadastreId'],
      additionalProperties: false,
      properties: {
        kind: { type: 'string', enum: ['PROPERTY'] },
        country: { type: 'string', pattern: '^[A-Z]{2}$' },
        cadastreId: { type: 'string', minLength: 1, maxLength: 100 },
      },
    },
    {
      type: 'object',
      title: 'Company target',
      required: ['kind', 'scheme', 'id'],
      additionalProperties: false,
      properties: {
        kind: { type: 'string', enum: ['COMPANY'] },
        scheme: { type: 'string', pattern: '^[0-9]{4}$' },
        id: { type: 'string', pattern: '^[0-9A-Za-z-]{1,35}$' },
      },
    },
  ],
} as const;

export const EVENT_TYPES = ['OWNER_CHANGED', 'TENANT_CHANGED', 'TRANSACTION_REGISTERED', 'BUILDING_PERMIT_CHANGED'] as const;

export const Subscription = {
  $id: 'Subscription',
  type: 'object',
  required: ['id', 'target', 'events', 'webhookUrl', 'status', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    target: ref('SubscriptionTarget'),
    events: { type: 'array', items: { type: 'string', enum: EVENT_TYPES } },
    webhookUrl: { type: 'string', format: 'uri' },
    status: { type: 'string', enum: ['ACTIVE', 'PAUSED'] },
    createdAt: timestamp,
  },
} as const;

export const Identity = {
  $id: 'Identity',
  type: 'object',
  // The caller's own identity and quota: for no one else, so for no cache.
  'x-personal-data': true,
  required: ['clientId', 'tier', 'scopes', 'dailyCallLimit', 'callsToday'],
  properties: { clientId: str, tier: str, scopes: strings, dailyCallLimit: int, callsToday: int },
} as const;

export const RESOURCE_SCHEMAS = [
  Property, Owner, Building, Section, Unit, Tenant, Transaction, ComparableTransaction, Valuation, EnergyCertificate,
  Certification, ZoningPlan, Utilization, BuildingPermit, CompanyProperty, LandAllocation, SubscriptionTarget, Subscription, Identity,
];
