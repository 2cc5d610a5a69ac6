import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ApiContext } from '../context.js';
import { callerOf } from '../request-types.js';
import { checkCountry } from '../cadastre-id.js';
import { countryParam, itemsOf, jsonResponse, operationSchema } from '../schemas/operation.js';
import { ref } from '../schemas/values.js';
import { searchAddresses } from '../store/address-search.js';
import { resolveCoordinate, type CoordinateAnswerText } from '../store/coordinates.js';
import { countedRead, countForRead } from '../auth/guard.js';
import { propertyLinks } from './properties.js';
import { badRequest } from '../problem.js';
import { withMember } from '../json-text.js';

const DECIMAL = /^[+-]?[0-9]{1,3}(?:\.[0-9]{1,20})?$/;

export function registerAddressRoutes(fastify: FastifyInstance, ctx: ApiContext): void {
  // Request types inferred from the route schemas (schemas/operation.ts).
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/addresses/:country/:address', {
    config: { access: 'properties.read' },
    schema: operationSchema({
      operationId: 'searchAddresses',
      summary: 'Addresses matching a text, best match first',
      description:
        'Case, diacritics (ø/o, å/a, ä/a, ö/o, æ/ae) and the street abbreviations gt., vn. and v. (gate, veien, vägen) do not matter; a house letter may be written apart ("98 A" finds 98A). '
        + 'An address matches when it starts with the query, or when each word of the query is a word of it or (from three letters) the start of one. A partial address returns several matches (at most 20). '
        + 'Every query is served by an index at a bounded cost; 503 if the store could not answer within a second.',
      tags: ['addresses'],
      access: 'properties.read',
      params: Type.Object({ country: countryParam, address: Type.String({ minLength: 3, maxLength: 200, description: 'URL-encoded address text' }) }),
      responses: { 200: jsonResponse('Matching addresses, best first', itemsOf(ref('Address'))) },
      errors: [503],
    }),
    handler: async (request) => {
      const country = checkCountry(ctx.countries, request.params.country);
      return { items: await searchAddresses(ctx.db, country, request.params.address, callerOf(request).sandbox) };
    },
  });

  app.get('/coordinates/:country/:lat/:lon', {
    // The hottest read: its statement counts the call too, one round trip (api/limits/counted-read.ts).
    config: { access: 'properties.read', countsInRead: true },
    schema: operationSchema({
      operationId: 'resolveCoordinate',
      summary: 'The property whose registered boundary covers a WGS84 coordinate, with its buildings and addresses',
      description: 'Outside every registered property: 200 without property, with empty buildings and addresses.',
      tags: ['addresses'],
      access: 'properties.read',
      params: Type.Object({ country: countryParam, lat: Type.Number({ minimum: -90, maximum: 90 }), lon: Type.Number({ minimum: -180, maximum: 180 }) }),
      responses: {
        200: jsonResponse('The covering property, or none', {
          type: 'object',
          required: ['buildings', 'addresses'],
          properties: { property: ref('Property'), buildings: { type: 'array', items: ref('Building') }, addresses: { type: 'array', items: ref('Address') } },
        }),
      },
    }),
    // Decimal degrees only: the number coercion alone would also take "0x1F" or "1e1".
    preValidation: async (request) => {
      const raw = request.params as unknown as { lat: string; lon: string };
      for (const name of ['lat', 'lon'] as const) {
        if (!DECIMAL.test(String(raw[name]))) throw badRequest(`${name} "${raw[name]}" is not a decimal number of degrees`);
      }
    },
    handler: async (request, reply) => {
      const country = checkCountry(ctx.countries, request.params.country);
      const { count, ...answer } = await resolveCoordinate(ctx.lookups, country, request.params.lat, request.params.lon, callerOf(request).sandbox, countForRead(request));
      if (count) countedRead(ctx, request, count);
      // PostgreSQL rendered the answer (api/store/coordinates.ts): sent as it is, not serialized again.
      reply.type('application/json; charset=utf-8');
      return coordinateAnswerJson(answer, answer.cadastreId ? propertyLinks(ctx.baseUrl, country, answer.cadastreId) : []);
    },
  });
}

/**
 * The coordinate answer as the response schema orders it, from the statement's JSON text, the
 * property with its links (which carry the API's base URL).
 */
function coordinateAnswerJson(answer: CoordinateAnswerText, links: unknown[]): string {
  const rest = `"buildings":${answer.buildings},"addresses":${answer.addresses}}`;
  return answer.property ? `{"property":${withMember(answer.property, 'links', links)},${rest}` : `{${rest}`;
}
