import type { FastifySchema } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { NO_CADASTRE_ID_PATTERN } from '../cadastre-id.js';
import { SE_CADASTRE_ID_PATTERN } from '../../sources/se/cadastre-id.js';
import type { Access } from '../request-types.js';
import { ref, VALUE_SCHEMAS } from './values.js';
import { RESOURCE_SCHEMAS } from './resources.js';

/**
 * One operation's schema in the shape both Fastify (validation, serialization) and
 * @fastify/swagger (the OpenAPI document) read: the success response, the Problem Details
 * responses the spec lists for it, RateLimit headers on all of them, and its security.
 */
// Fresh objects on every use: the YAML writer would turn shared ones into anchors and aliases.
const integerHeader = (description: string) => ({ type: 'integer', description });
export const rateLimitHeaders = () => ({
  'RateLimit-Limit': integerHeader('Requests allowed in the current short window'),
  'RateLimit-Remaining': integerHeader('Requests left in the current short window'),
  'RateLimit-Reset': integerHeader('Seconds until the current short window resets'),
});

const DESCRIPTIONS: Record<number, string> = {
  400: 'The request failed validation (code VALIDATION_FAILED; a query parameter the operation does not declare included), or a required Idempotency-Key is missing',
  401: 'Bearer token missing, expired or invalid',
  403: 'The token lacks the scope this operation needs',
  404: 'No such resource in the served registers, or a resource of another tenant',
  409: 'The Idempotency-Key was used with a different request, or the client reached a limit (SUBSCRIPTION_LIMIT_REACHED)',
  413: 'The request body is too large',
  415: 'The request body has an unsupported media type',
  429: 'Burst rate limit or daily quota exceeded',
  500: 'Server-side failure',
  503: 'The store could not answer in time; retry after Retry-After seconds',
};

export function problemResponse(status: number) {
  const headers: Record<string, unknown> = rateLimitHeaders();
  if (status === 429 || status === 503) headers['Retry-After'] = integerHeader('Seconds to wait before retrying');
  return { description: DESCRIPTIONS[status], headers, content: { 'application/problem+json': { schema: ref('Problem') } } };
}

export function jsonResponse(description: string, schema: object, mediaType = 'application/json') {
  return { description, headers: rateLimitHeaders(), content: { [mediaType]: { schema } } };
}

/**
 * A response without a body (204, a redirect). `type: 'null'` is what tells @fastify/swagger to
 * describe no content at all, instead of an `application/json` body holding nothing.
 */
export function emptyResponse(description: string, headers: Record<string, object> = {}) {
  return { type: 'null', description, headers: { ...rateLimitHeaders(), ...headers } };
}

/** Response headers an operation sets beyond the RateLimit ones, added to a response built above. */
export function withHeaders<T extends { headers: object }>(response: T, headers: Record<string, object>): T {
  return { ...response, headers: { ...response.headers, ...headers } };
}

/** `Location` of a created resource or of a redirect's target. */
export const locationHeader = (description: string) => ({ type: 'string', format: 'uri', description });

/** Set on an answer replayed from an earlier request with the same Idempotency-Key (api/idempotency.ts). */
export const idempotentReplayedHeader = () => ({
  type: 'string',
  enum: ['true'],
  description: 'Present when this answer is the stored one of an earlier request with the same Idempotency-Key',
});

/**
 * An operation's request parts (path, query, headers, body) are TypeBox schemas: JSON Schema at
 * run time (Ajv validates them, @fastify/swagger describes them), and through the TypeBox type
 * provider the handler's request type, so no request shape is written twice.
 */
type RequestPart = TSchema | undefined;

export interface OperationSpec<Params extends RequestPart = undefined, Query extends RequestPart = undefined, Headers extends RequestPart = undefined, Body extends RequestPart = undefined> {
  operationId: string;
  summary: string;
  /** What a client needs beyond the summary; required, so every operation in /openapi.yaml has one. */
  description: string;
  tags: string[];
  access: Access;
  params?: Params;
  querystring?: Query;
  headers?: Headers;
  body?: Body;
  consumes?: string[];
  /** Success responses by status. */
  responses: Record<number, object>;
  /** Error statuses beyond the defaults of its access (400, 401, 403, 404, 429, 500 for a token route). */
  errors?: number[];
  /**
   * Only the token endpoint: RFC 6749 section 3.2 requires it to ignore request parameters it
   * does not know. Every other operation refuses them (closedQuery).
   */
  ignoreUnknownQuery?: true;
}

/**
 * One rule for query parameters on every operation: a parameter the operation does not declare
 * is 400 VALIDATION_FAILED naming it (error-handler.ts), never silently ignored, so a typo
 * (`pagesize`) is not mistaken for a default. An operation without parameters takes none.
 */
export function closedQuery(querystring: object | undefined): object {
  return { type: 'object', properties: {}, ...querystring, additionalProperties: false };
}

const SHARED = new Map<string, object>([...VALUE_SCHEMAS, ...RESOURCE_SCHEMAS].map((schema) => [`${schema.$id}#`, schema]));

/** Whether a schema holds, through any `$ref`, a shared schema marked `x-personal-data`. */
export function holdsPersonalData(schema: unknown, seen = new Set<unknown>()): boolean {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return false;
  seen.add(schema);
  const node = schema as Record<string, unknown>;
  if (node['x-personal-data'] === true) return true;
  if (typeof node.$ref === 'string' && holdsPersonalData(SHARED.get(node.$ref), seen)) return true;
  return Object.values(node).some((value) => holdsPersonalData(value, seen));
}

/**
 * Whether an operation answers with personal data (its success responses hold a schema marked
 * `x-personal-data`): such answers carry `Cache-Control: no-store` (app.ts), so no cache along
 * the way keeps them.
 */
export function answersPersonalData(schema: { response?: unknown } | undefined): boolean {
  const responses = (schema?.response ?? {}) as Record<string, unknown>;
  return Object.entries(responses).some(([status, response]) => Number(status) < 300 && holdsPersonalData(response));
}

const noStoreHeader = () => ({ type: 'string', enum: ['no-store'], description: 'The answer holds personal data: no cache may store it' });

/** What operationSchema gives a route: its request parts keep their TypeBox types for the type provider. */
export type OperationSchema<Params extends RequestPart, Query extends RequestPart, Headers extends RequestPart, Body extends RequestPart> = FastifySchema & {
  params: Params;
  querystring: Query;
  headers: Headers;
  body: Body;
  response: Record<number, unknown>;
};

export function operationSchema<Params extends RequestPart = undefined, Query extends RequestPart = undefined, Headers extends RequestPart = undefined, Body extends RequestPart = undefined>(
  spec: OperationSpec<Params, Query, Headers, Body>,
): OperationSchema<Params, Query, Headers, Body> {
  const defaultErrors = spec.access === 'public' ? [429, 500] : spec.access === 'token' ? [401, 429, 500] : [400, 401, 403, 404, 429, 500];
  const querystring = spec.ignoreUnknownQuery ? spec.querystring : closedQuery(spec.querystring);
  const statuses = [...new Set([...(spec.params || querystring || spec.body || spec.headers ? [400] : []), ...defaultErrors, ...(spec.errors ?? [])])].sort();
  const response: Record<number, object> = { ...spec.responses };
  if (answersPersonalData({ response })) {
    for (const [status, success] of Object.entries(spec.responses) as [string, { headers?: object }][]) {
      response[Number(status)] = { ...success, headers: { ...success.headers, 'Cache-Control': noStoreHeader() } };
    }
  }
  // An operation's own description of a status (the token endpoint's RFC 6749 400) wins.
  for (const status of statuses) response[status] ??= problemResponse(status);
  const security = spec.access === 'public' ? [] : [{ oauth2: spec.access === 'token' ? [] : [spec.access] }];
  const schema = {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    security,
    params: spec.params,
    querystring,
    headers: spec.headers,
    body: spec.body,
    consumes: spec.consumes,
    response,
  };
  // Fastify warns about parts present but undefined; leave them out.
  return Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined)) as unknown as OperationSchema<Params, Query, Headers, Body>;
}

/** Path parameters shared by the property operations. */
export const countryParam = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code: NO or SE' });
export const cadastreIdParam = Type.String({
  minLength: 3,
  maxLength: 100,
  description:
    `Norway: kommune-gnr-bnr-fnr-snr, pattern ${NO_CADASTRE_ID_PATTERN} (0301-208-327-0-12; a section has snr > 0). ` +
    `Sweden: kommunkod_TRAKT[_BLOCK]_ENHET, pattern ${SE_CADASTRE_ID_PATTERN}: the trakt in upper case with its spaces as "-", ` +
    'the block a number or a letter code (S samfällighet, GA gemensamhetsanläggning, FA fiskeområde), no block for a kvarter: ' +
    '0180_KUNGSHOLMEN_1_2, 2480_TOLVMANSGÅRDEN_4, 0114_FACKLAN_S_12, 0882_BERGA_GA_1. A Swedish id is read in any case (a space as "-") and answered in this form.',
});
export const propertyParams = Type.Object({ country: countryParam, cadastreId: cadastreIdParam });
export type PropertyParams = Static<typeof propertyParams>;

const DEFAULT_PAGE_SIZE = 50;
export const pageQuery = Type.Object(
  {
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_PAGE_SIZE })),
    pageToken: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'The previous response’s nextPageToken, verbatim' })),
  },
  { additionalProperties: false },
);

/**
 * The page a paged operation was asked for. Ajv has already filled in the default page size; the
 * fallback only tells the type, which TypeBox leaves optional for a property with a default.
 */
export const pageRequest = (query: Static<typeof pageQuery>) => ({ pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });

export const itemsOf = (schema: object, paged = false) => ({
  type: 'object',
  required: ['items'],
  properties: { items: { type: 'array', items: schema }, ...(paged ? { nextPageToken: { type: 'string', description: 'Absent on the last page' } } : {}) },
});
