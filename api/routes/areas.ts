import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ApiContext } from '../context.js';
import { callerOf } from '../request-types.js';
import { checkCountry } from '../cadastre-id.js';
import { badRequest, notFound } from '../problem.js';
import { countryParam, itemsOf, jsonResponse, operationSchema, pageQuery, pageRequest } from '../schemas/operation.js';
import { ref } from '../schemas/values.js';
import { page } from '../paging.js';
import { areaKnown, fetchLandAllocations, parseAreaId } from '../store/land-allocations.js';

export function registerAreaRoutes(fastify: FastifyInstance, ctx: ApiContext): void {
  // Request types inferred from the route schemas (schemas/operation.ts).
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/areas/:country/:areaId/land-allocations', {
    config: { access: 'areas.read' },
    schema: operationSchema({
      operationId: 'listLandAllocations',
      summary: 'Land allocations announced in an area, newest first (paged)',
      description: 'areaId: a municipality code (0301), grunnkrets:<8 digits> or postal-code:<code>.',
      tags: ['areas'],
      access: 'areas.read',
      params: Type.Object({
        country: countryParam,
        areaId: Type.String({ minLength: 4, maxLength: 40, examples: ['0301', 'grunnkrets:03010101', 'postal-code:0150'] }),
      }),
      querystring: pageQuery,
      responses: { 200: jsonResponse('A page of land allocations', itemsOf(ref('LandAllocation'), true)) },
    }),
    handler: async (request) => {
      const country = checkCountry(ctx.countries, request.params.country);
      const area = parseAreaId(request.params.areaId);
      if (!area) throw badRequest(`areaId "${request.params.areaId}" is not a municipality code, grunnkrets:<code> or postal-code:<code>`);
      if (!(await areaKnown(ctx.db, country, area))) throw notFound('AREA_NOT_FOUND', `no area ${request.params.areaId} in ${country}`);
      const query = { operation: 'listLandAllocations', params: { country, kind: area.kind, code: area.code }, clientId: callerOf(request).clientId };
      return page(
        ctx.keys.pageToken, query, pageRequest(request.query),
        (after, limit) => fetchLandAllocations(ctx.db, country, area, after, limit),
        (row) => [row.announced, row.allocation_id],
        (row) => row.allocation,
      );
    },
  });
}
