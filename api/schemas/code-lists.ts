/**
 * The values the API writes for its code fields. For building status and transaction kind the spec names a few
 * (`IN_USE`, `UNDER_CONSTRUCTION`; `SALE`); the registers hold more, each kept under a name of its
 * own rather than folded into those, and the OpenAPI document lists every one as an enum.
 * test/api/code-lists.test.ts checks building status, heating grade, energy label, certification scheme
 * and tenant confidence against the adapters' mappings, the derive step and the exchange formats.
 */

/** Building status: Norway's bygningsstatus codes as sources/no/building/codes.ts maps them. */
export const BUILDING_STATUSES = [
  'UNDER_CONSTRUCTION', // RA rammetillatelse, IG igangsettingstillatelse
  'IN_USE', // MB midlertidig brukstillatelse, FA ferdigattest, TB tatt i bruk
  'NOTIFIED_MEASURE_REGISTERED', // MT meldingssak registrert
  'NOTIFIED_MEASURE_COMPLETED', // MF meldingssak fullført
  'NOT_SUBJECT_TO_REGISTRATION', // IP ikke pliktig registrert
  'APPROVED_FOR_DEMOLITION', // GR godkjent revet
  'DEMOLISHED', // BR bygning revet/brent
  'CONSTRUCTION_CANCELLED', // BA bygging avlyst
  'MOVED', // BF bygning flyttet
  'BUILDING_NUMBER_EXPIRED', // BU bygningsnummer utgått
  'EXEMPT_FROM_APPLICATION', // FS fritatt for søknadsplikt
  'BUILDING_DATA_CHANGED', // EB bygningsdata endret
  'EXTENSION_MADE_SEPARATE_BUILDING', // TE tilbygg endret til egen bygning
  'ESTABLISHED_AS_EXTENSION', // TA etablert som tilbygg
  'BUILDING_SPLIT', // SB bygning splittet
  'CHANGE_DATA_TRANSFERRED', // DO endringsdata overført
] as const;

/**
 * Transaction kind: the grunnbok's omsetningstype (sources/no/land-registry/parse.ts) and the
 * fång of Lantmäteriet's property prices (sources/se/transactions/parse.ts).
 */
export const TRANSACTION_KINDS = [
  'SALE', // fritt salg; köp
  'GIFT', // gave; gåva
  'INHERITANCE', // arv; arv, bodelning, testamente
  'SETTLEMENT', // skifte
  'EXCHANGE', // byte
  'FORCED_SALE', // tvangssalg
  'EXPROPRIATION', // ekspropriasjon
  'OTHER', // annet; any other fång
] as const;

/**
 * Energy label (Norway's energikarakter, Sweden's energiklass), of a certificate and of a unit:
 * sources/no/energy/parse.ts and sources/se/energy/parse.ts refuse anything else, the
 * matrikkel exchange format (schema/exchange/no-matrikkel-detail.schema.json) allows only these.
 */
export const ENERGY_LABELS = ['A', 'B', 'C', 'D', 'E', 'F', 'G'] as const;

/** Enova's heating grade (oppvarmingskarakter), best first, as sources/no/energy/parse.ts names the colours. */
export const HEATING_GRADES = ['GREEN', 'LIGHT_GREEN', 'YELLOW', 'ORANGE', 'RED'] as const;

/** A unit's kitchen access and ownership form, as sources/no/matrikkel-detail/adapter.ts maps the matrikkel's codes. */
export const KITCHEN_ACCESS = ['OWN_KITCHEN', 'SHARED_KITCHEN', 'NO_KITCHEN'] as const;
export const OWNERSHIP_FORMS = ['FREEHOLD', 'HOUSING_COOPERATIVE', 'SHARE', 'RENTAL'] as const;

/** How sure the nightly derive step is that a company is a tenant (derive/tenants/rules.ts). */
export const TENANT_CONFIDENCES = ['HIGH', 'MEDIUM', 'LOW'] as const;

/** Certification scheme, as the certification exchange format (schema/exchange/no-certification.schema.json) names it. */
export const CERTIFICATION_SCHEMES = ['BREEAM-NOR', 'BREEAM', 'BREEAM-IN-USE', 'LEED', 'WELL', 'SVANEMERKET'] as const;
