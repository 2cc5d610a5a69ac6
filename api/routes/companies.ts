import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ApiContext } from '../context.js';
import { callerOf } from '../request-types.js';
import { notFound } from '../problem.js';
import { itemsOf, jsonResponse, operationSchema, pageQuery, pageRequest } from '../schemas/operation.js';
import { ref } from '../schemas/values.js';
import { page } from '../paging.js';
import { fetchCompanyProperties } from '../store/companies.js';
import { companyVisible } from '../store/visibility.js';
import { propertyLinks } from './properties.js';

export function registerCompanyRoutes(fastify: FastifyInstance, ctx: ApiContext): void {
  // Request types inferred from the route schemas (schemas/operation.ts).
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/companies/:scheme/:id/properties', {
    config: { access: 'companies.read' },
    schema: operationSchema({
      operationId: 'listCompanyProperties',
      summary: 'The properties a company holds title to (paged)',
      description: 'Every property the company is a registered owner of, with its share and when it was registered; ordered by country and cadastre id. An unknown company is 404 (COMPANY_NOT_FOUND).',
      tags: ['companies'],
      access: 'companies.read',
      params: Type.Object({
        scheme: Type.String({ pattern: '^[0-9]{4}$', description: 'ISO 6523 ICD code: 0192 (Norway, Brønnøysund), 0007 (Sweden, Bolagsverket)' }),
        id: Type.String({ pattern: '^[0-9A-Za-z-]{1,35}$', description: 'Register identifier' }),
      }),
      querystring: pageQuery,
      responses: { 200: jsonResponse('A page of the company’s properties', itemsOf(ref('CompanyProperty'), true)) },
    }),
    handler: async (request) => {
      const { scheme, id } = request.params;
      const caller = callerOf(request);
      if (!(await companyVisible(ctx.db, scheme, id, caller.sandbox))) throw notFound('COMPANY_NOT_FOUND', `no company ${scheme}:${id} in the served registers`);
      const query = { operation: 'listCompanyProperties', params: { scheme, id }, clientId: caller.clientId };
      return page(
        ctx.keys.pageToken, query, pageRequest(request.query),
        (after, limit) => fetchCompanyProperties(ctx.db, scheme, id, caller.sandbox, after, limit),
        (row) => [row.country, row.cadastre_id],
        (row) => ({ ...row.property, links: propertyLinks(ctx.baseUrl, row.country, row.cadastre_id) }),
      );
    },
  });
}
