import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Caller } from '../auth/tokens.js';
import type { ApiContext } from '../context.js';
import { callerOf } from '../request-types.js';
import { checkCountry, normalCadastreId } from '../cadastre-id.js';
import { notFound } from '../problem.js';
import { itemsOf, jsonResponse, operationSchema, pageQuery, pageRequest, propertyParams, type PropertyParams } from '../schemas/operation.js';
import { ref } from '../schemas/values.js';
import { page } from '../paging.js';
import { fetchPropertyJson, propertyVisible } from '../store/property.js';
import { withMember } from '../json-text.js';
import { countedRead, countForRead } from '../auth/guard.js';
import { fetchSections } from '../store/sections.js';
import { fetchBuildings } from '../store/buildings.js';
import { fetchUnits } from '../store/units.js';
import { fetchOwners } from '../store/owners.js';
import { fetchTenants } from '../store/tenants.js';
import { fetchTransactions } from '../store/transactions.js';
import { fetchComparables } from '../store/comparables.js';
import { fetchValuation } from '../store/valuation.js';
import { fetchEnergyCertificates } from '../store/energy-certificates.js';
import { fetchCertifications } from '../store/certifications.js';
import { fetchZoningPlans } from '../store/zoning-plans.js';
import { fetchUtilization } from '../store/utilization.js';
import { fetchBuildingPermits } from '../store/building-permits.js';
import { signedDocumentUrl } from './zoning-documents.js';

/** Links from a property to its sub-resources, absolute as the spec's Link requires. */
export function propertyLinks(baseUrl: string, country: string, cadastreId: string) {
  const base = `${baseUrl}/properties/${country}/${encodeURIComponent(cadastreId)}`;
  return [
    { href: `${base}/sections`, title: 'Sections' },
    { href: `${base}/buildings`, title: 'Buildings' },
    { href: `${base}/units`, title: 'Units' },
  ];
}

/**
 * The fourteen property operations. Each checks the country is served, the id has its country's
 * shape and the property exists (and is a demo property for a sandbox client), else 404.
 */
export function registerPropertyRoutes(fastify: FastifyInstance, ctx: ApiContext): void {
  // Request types inferred from the route schemas (schemas/operation.ts).
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const resolve = async (request: { params: PropertyParams; caller?: Caller }) => {
    const country = checkCountry(ctx.countries, request.params.country);
    const cadastreId = normalCadastreId(country, request.params.cadastreId);
    const caller = callerOf(request);
    if (!(await propertyVisible(ctx.db, country, cadastreId, caller.sandbox))) {
      throw notFound('PROPERTY_NOT_FOUND', `no property ${country} ${cadastreId} in the served registers`);
    }
    return { country, cadastreId, caller, withNames: caller.scopes.includes('owners.read') };
  };

  const notFoundNote = 'An unknown property, or one a sandbox client may not see, is 404 (PROPERTY_NOT_FOUND).';

  const list = (path: string, operationId: string, summary: string, itemSchema: string, fetch: (p: Awaited<ReturnType<typeof resolve>>) => Promise<unknown[]>, description: string) =>
    app.get(`/properties/:country/:cadastreId${path}`, {
      config: { access: 'properties.read' },
      schema: operationSchema({
        operationId, summary, description, tags: ['properties'], access: 'properties.read', params: propertyParams,
        responses: { 200: jsonResponse(summary, itemsOf(ref(itemSchema))) },
      }),
      handler: async (request) => ({ items: await fetch(await resolve(request)) }),
    });

  app.get('/properties/:country/:cadastreId', {
    // A hot read: its statement counts the call too, one round trip (api/limits/counted-read.ts).
    config: { access: 'properties.read', countsInRead: true },
    schema: operationSchema({
      operationId: 'getProperty', summary: 'A property, with links to its sections, buildings and units', tags: ['properties'],
      description: `${notFoundNote} A Swedish cadastre id is answered in its normal form, whatever case it was asked in.`,
      access: 'properties.read', params: propertyParams, responses: { 200: jsonResponse('The property', ref('Property')) },
    }),
    // The property query itself answers whether the caller may see it: no separate check.
    handler: async (request, reply) => {
      const country = checkCountry(ctx.countries, request.params.country);
      const cadastreId = normalCadastreId(country, request.params.cadastreId);
      const { property: found, count } = await fetchPropertyJson(ctx.lookups, country, cadastreId, callerOf(request).sandbox, countForRead(request));
      if (count) countedRead(ctx, request, count);
      if (!found) throw notFound('PROPERTY_NOT_FOUND', `no property ${country} ${cadastreId} in the served registers`);
      // PostgreSQL rendered the property (api/store/property.ts): sent as it is, not serialized again.
      reply.type('application/json; charset=utf-8');
      return withMember(found, 'links', propertyLinks(ctx.baseUrl, country, cadastreId));
    },
  });

  const ownerNote = 'A person’s name is present only when the token holds scope owners.read; birthYear stays.';
  list('/sections', 'listPropertySections', 'The sections of a property, each with its owners', 'Section', (p) => fetchSections(ctx.db, p.country, p.cadastreId, p.withNames), ownerNote);
  list('/buildings', 'listPropertyBuildings', 'The buildings on a property', 'Building', (p) => fetchBuildings(ctx.db, p.country, p.cadastreId),
    `Each building with its status (an enum of the registers’ statuses) and status history. ${notFoundNote}`);
  list('/units', 'listPropertyUnits', 'The units of a property and of its sections', 'Unit', (p) => fetchUnits(ctx.db, p.country, p.cadastreId, p.caller.sandbox), notFoundNote);
  const wholeShareNote =
    'Each share is of the property as a whole: a section holder’s is the section’s share of the property (as /sections gives it) times the holder’s share of the section, so the shares add up to 1 where the register is complete; one entry per holding, the property’s own holders first, then each section’s in section order.';
  list('/owners', 'listPropertyOwners', 'The rights holders of a property as a whole, across all sections', 'Owner', (p) => fetchOwners(ctx.db, p.country, p.cadastreId, p.withNames), `${wholeShareNote} ${ownerNote}`);
  list('/tenants', 'listPropertyTenants', 'Companies with a registered business address on the property', 'Tenant', (p) => fetchTenants(ctx.db, p.country, p.cadastreId),
    `Computed by the nightly derive step: empty until it has run. ${notFoundNote}`);
  list('/comparable-transactions', 'listComparableTransactions', 'Comparable sales, most similar first', 'ComparableTransaction', (p) => fetchComparables(ctx.db, p.country, p.cadastreId, p.withNames, p.caller.sandbox), ownerNote);
  list('/energy-certificates', 'listEnergyCertificates', 'Energy certificates of the property’s buildings', 'EnergyCertificate', (p) => fetchEnergyCertificates(ctx.db, p.country, p.cadastreId, p.caller.sandbox), notFoundNote);
  list('/certifications', 'listCertifications', 'Environmental certifications of the property’s buildings', 'Certification', (p) => fetchCertifications(ctx.db, p.country, p.cadastreId, p.caller.sandbox), notFoundNote);
  list('/zoning-plans', 'listZoningPlans', 'Zoning plans covering the property (proposed, adopted or repealed)', 'ZoningPlan', async (p) =>
    (await fetchZoningPlans(ctx.db, p.country, p.cadastreId)).map((plan) => ({
      ...plan.plan,
      documents: plan.documents.map((document) => ({
        ...document,
        downloadUrl: signedDocumentUrl(ctx, { country: p.country, municipalityCode: plan.municipalityCode, planId: plan.planId, documentId: document.id }),
      })),
    })),
    `Plans whose area overlaps the property’s parcels (touching is not covering). Each document’s downloadUrl is signed and valid for an hour. ${notFoundNote}`,
  );

  const single = (path: string, operationId: string, summary: string, schema: string, code: string, fetch: (p: Awaited<ReturnType<typeof resolve>>) => Promise<unknown | undefined>) =>
    app.get(`/properties/:country/:cadastreId${path}`, {
      config: { access: 'properties.read' },
      schema: operationSchema({
        operationId, summary, tags: ['properties'], access: 'properties.read', params: propertyParams,
        description: `404 (code ${code}) until the nightly derive step has computed it for this property.`,
        responses: { 200: jsonResponse(summary, ref(schema)) },
      }),
      handler: async (request) => {
        const p = await resolve(request);
        const found = await fetch(p);
        if (!found) throw notFound(code, `no ${path.slice(1)} computed for ${p.country} ${p.cadastreId} yet`);
        return found;
      },
    });
  single('/valuations', 'getValuation', 'The automated valuation of a property', 'Valuation', 'VALUATION_NOT_FOUND', (p) => fetchValuation(ctx.db, p.country, p.cadastreId));
  single('/utilization', 'getUtilization', 'Allowed, built and remaining floor area under the zoning', 'Utilization', 'UTILIZATION_NOT_FOUND', (p) => fetchUtilization(ctx.db, p.country, p.cadastreId));

  const paged = <Row>(path: string, operationId: string, summary: string, schema: string, fetch: (p: Awaited<ReturnType<typeof resolve>>, after: (string | number)[] | undefined, limit: number) => Promise<Row[]>, keyOf: (row: Row) => (string | number)[], itemOf: (row: Row) => unknown, description: string) =>
    app.get(`/properties/:country/:cadastreId${path}`, {
      config: { access: 'properties.read' },
      schema: operationSchema({
        operationId, summary, description, tags: ['properties'], access: 'properties.read', params: propertyParams, querystring: pageQuery,
        responses: { 200: jsonResponse(summary, itemsOf(ref(schema), true)) },
      }),
      handler: async (request) => {
        const p = await resolve(request);
        const query = { operation: operationId, params: { country: p.country, cadastreId: p.cadastreId }, clientId: p.caller.clientId };
        return page(ctx.keys.pageToken, query, pageRequest(request.query), (after, limit) => fetch(p, after, limit), keyOf, itemOf);
      },
    });
  paged('/transactions', 'listPropertyTransactions', 'Registered transactions of a property, newest first (paged)', 'Transaction',
    (p, after, limit) => fetchTransactions(ctx.db, p.country, p.cadastreId, p.withNames, after, limit), (row) => [row.registered_at, row.transaction_id], (row) => row.transaction, ownerNote);
  paged('/building-permits', 'listBuildingPermits', 'Building permit cases of a property, newest first (paged)', 'BuildingPermit',
    (p, after, limit) => fetchBuildingPermits(ctx.db, p.country, p.cadastreId, p.caller.sandbox, after, limit), (row) => [row.applied, row.case_id], (row) => row.permit, notFoundNote);
}
