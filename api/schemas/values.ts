/**
 * Shared value objects of the spec as JSON Schemas. Each has an `$id`, is added to the app once
 * (app.ts) and referenced as `{ $ref: '<Id>#' }`; the OpenAPI document lists them under
 * `components/schemas` by that id.
 */
export const ref = (id: string) => ({ $ref: `${id}#` });
const date = { type: 'string', format: 'date' } as const;
export const timestamp = { type: 'string', format: 'date-time' } as const;
/**
 * When a title or a transfer was registered. The registers mostly give only the day (the
 * grunnbok's tinglysingsdato, the inskrivningsdag): that day is written as a date, not as its
 * local midnight in UTC (the day before); a time the register gave is an RFC 3339 UTC timestamp.
 */
export const registeredAt = {
  type: 'string',
  anyOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }],
  description: 'The registration day (YYYY-MM-DD, e.g. 2009-01-04) when the register gives only the day, else an RFC 3339 UTC timestamp',
} as const;
export { date };

export const Money = {
  $id: 'Money',
  type: 'object',
  description: 'A monetary value: a decimal string with two decimals and a currency code.',
  required: ['amount', 'currency'],
  properties: {
    amount: { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2}$', examples: ['1234.00'] },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', examples: ['NOK'] },
  },
} as const;

export const Share = {
  $id: 'Share',
  type: 'object',
  required: ['numerator', 'denominator'],
  properties: { numerator: { type: 'integer' }, denominator: { type: 'integer' } },
} as const;

export const Location = {
  $id: 'Location',
  type: 'object',
  description: 'A WGS84 position in decimal degrees.',
  required: ['lat', 'lon'],
  properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number', minimum: -180, maximum: 180 } },
} as const;

export const Municipality = {
  $id: 'Municipality',
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', pattern: '^[0-9]{4}$' }, name: { type: 'string' } },
} as const;

export const OrganizationIdentifier = {
  $id: 'OrganizationIdentifier',
  type: 'object',
  required: ['scheme', 'id'],
  properties: {
    scheme: { type: 'string', description: 'ISO 6523 ICD code (0192 Brønnøysund, 0007 Bolagsverket)' },
    id: { type: 'string', description: 'Register identifier' },
  },
} as const;

export const Organization = {
  $id: 'Organization',
  type: 'object',
  required: ['organizationIdentifier', 'name'],
  properties: { organizationIdentifier: ref('OrganizationIdentifier'), name: { type: 'string' }, country: { type: 'string' } },
} as const;

export const Link = {
  $id: 'Link',
  type: 'object',
  required: ['href', 'title'],
  properties: { href: { type: 'string', format: 'uri' }, title: { type: 'string' } },
} as const;

export const Address = {
  $id: 'Address',
  type: 'object',
  required: ['text', 'country'],
  properties: {
    text: { type: 'string', description: 'Full address text' },
    streetName: { type: 'string' },
    houseNumber: { type: 'string' },
    postalCode: { type: 'string' },
    postalPlace: { type: 'string' },
    country: { type: 'string' },
    cadastreId: { type: 'string', description: 'The property the address belongs to' },
    location: ref('Location'),
  },
} as const;

export const Problem = {
  $id: 'Problem',
  type: 'object',
  description: 'Problem Details (RFC 9457).',
  required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'traceId'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
    traceId: { type: 'string' },
    errors: {
      type: 'array',
      description: 'For VALIDATION_FAILED: each failed check, where it failed.',
      items: { type: 'object', required: ['location', 'message'], properties: { location: { type: 'string' }, message: { type: 'string' } } },
    },
  },
} as const;

export const VALUE_SCHEMAS = [Money, Share, Location, Municipality, OrganizationIdentifier, Organization, Link, Address, Problem];
