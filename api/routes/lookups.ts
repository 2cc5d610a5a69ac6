import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ApiContext } from '../context.js';
import { callerOf } from '../request-types.js';
import { checkCountry, normalCadastreId } from '../cadastre-id.js';
import { ApiProblem } from '../problem.js';
import { idempotencyHeaders, idempotent } from '../idempotency.js';
import { chargeCalls, clientSubject } from '../limits/call-counter.js';
import { countryParam, idempotentReplayedHeader, jsonResponse, operationSchema, withHeaders } from '../schemas/operation.js';
import { ref } from '../schemas/values.js';
import { fetchProperties } from '../store/property.js';
import { propertyLinks } from './properties.js';

/**
 * POST /properties/{country}/lookups: up to 100 properties in one call. Ids that do not resolve
 * (unknown, malformed, or not a demo property for a sandbox) are listed in notFound, never 404;
 * 404 means the country is not served. Each id counts as one call (the request itself was
 * counted as one by the guard), charged with the stored response or not at all.
 */
export function registerLookupRoute(fastify: FastifyInstance, ctx: ApiContext): void {
  // Request types inferred from the route schemas (schemas/operation.ts).
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/properties/:country/lookups', {
    config: { access: 'properties.read' },
    schema: operationSchema({
      operationId: 'lookupProperties',
      summary: 'Bulk lookup of up to 100 properties',
      description: 'Each requested id counts as one call against the daily quota, resolved or not, charged together with the answer: a request that fails is not charged for its ids. The same Idempotency-Key replays the same response for 24 hours, without charging the ids again.',
      tags: ['properties'],
      access: 'properties.read',
      params: Type.Object({ country: countryParam }),
      headers: idempotencyHeaders,
      body: Type.Object(
        { cadastreIds: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100 }) },
        { additionalProperties: false },
      ),
      responses: {
        200: withHeaders(
          jsonResponse('The properties found, and the ids that did not resolve', {
            type: 'object',
            required: ['items', 'notFound'],
            properties: { items: { type: 'array', items: ref('Property') }, notFound: { type: 'array', items: { type: 'string' } } },
          }),
          { 'Idempotent-Replayed': idempotentReplayedHeader() },
        ),
      },
      errors: [409, 413, 415],
    }),
    handler: async (request, reply) => {
      const country = checkCountry(ctx.countries, request.params.country);
      const caller = callerOf(request);
      const ids = request.body.cadastreIds;
      const stored = await idempotent(ctx.db, { clientId: caller.clientId, key: request.headers['idempotency-key'], operation: `lookup ${country}`, body: request.body }, async (tx) => {
        // Charged in the transaction that stores the response: a lookup that fails (or is
        // refused) is not charged, and a replay is not charged again.
        if (!(await chargeCalls(tx, caller, ids.length - 1))) {
          throw new ApiProblem(429, 'DAILY_LIMIT_EXCEEDED', `${ids.length} ids would pass the daily call limit of ${caller.dailyCallLimit}`, { 'Retry-After': String(secondsToUtcMidnight()) });
        }
        const normal = ids.map((id) => {
          try {
            return normalCadastreId(country, id);
          } catch {
            return undefined;
          }
        });
        const found = await fetchProperties(tx, country, [...new Set(normal.filter((id): id is string => !!id))], caller.sandbox);
        const items: unknown[] = [];
        const notFoundIds: string[] = [];
        const served = new Set<string>();
        ids.forEach((id, i) => {
          const property = normal[i] && found.get(normal[i]!);
          if (!property) notFoundIds.push(id);
          else if (!served.has(property.cadastreId)) {
            served.add(property.cadastreId);
            items.push({ ...property, links: propertyLinks(ctx.baseUrl, country, property.cadastreId) });
          }
        });
        return { statusCode: 200, body: { items, notFound: notFoundIds } };
      });
      if (stored.replayed) reply.header('Idempotent-Replayed', 'true');
      // Committed with the response: the ids beyond the first are on the client's day now.
      else ctx.ahead.charged(clientSubject(caller.clientId), ids.length - 1);
      return reply.code(stored.statusCode).send(stored.body);
    },
  });
}

function secondsToUtcMidnight(now = new Date()): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.ceil((midnight - now.getTime()) / 1000);
}
