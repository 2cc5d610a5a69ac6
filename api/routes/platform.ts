import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PROJECT_ROOT } from '../../lib/config.js';
import type { ApiContext } from '../context.js';
import { ALL_SCOPES } from '../auth/scopes.js';
import { API_VERSION } from '../openapi.js';
import { jsonResponse, operationSchema } from '../schemas/operation.js';

const linkTarget = {
  type: 'object',
  required: ['href'],
  properties: { href: { type: 'string', format: 'uri' }, type: { type: 'string' }, title: { type: 'string' } },
  additionalProperties: true,
};

/** The Link header value by which the catalog refers to itself (RFC 9727 section 3). */
export const apiCatalogLink = (baseUrl: string) => `<${baseUrl}/.well-known/api-catalog>; rel="api-catalog"`;

function withLinkHeader<T extends { headers: object }>(response: T): T {
  return { ...response, headers: { ...response.headers, Link: { type: 'string', description: 'The catalog itself, as rel="api-catalog" (RFC 9727)' } } };
}

/** The catalog (RFC 9727), the OAuth metadata (RFC 8414), this description, its documentation and a health status; no token. */
export function registerPlatformRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get('/.well-known/api-catalog', {
    config: { access: 'public' },
    schema: operationSchema({
      operationId: 'getApiCatalog',
      summary: 'The API catalog (RFC 9727): status, scopes and links to the description, docs and changelog',
      description: 'No token. The answer, on GET and HEAD, names the catalog itself in a Link header with rel="api-catalog".',
      tags: ['platform'],
      access: 'public',
      responses: {
        200: withLinkHeader(jsonResponse(
          'An RFC 9264 linkset',
          {
            type: 'object',
            required: ['linkset'],
            properties: {
              linkset: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['anchor'],
                  properties: { anchor: { type: 'string', format: 'uri' } },
                  additionalProperties: { type: 'array', items: linkTarget },
                },
              },
            },
          },
          'application/linkset+json',
        )),
      },
    }),
    handler: async (_request, reply: FastifyReply) => {
      const base = ctx.baseUrl;
      // RFC 9727 section 3: the catalog names itself with the api-catalog relation, on GET and HEAD.
      reply.header('Link', apiCatalogLink(base));
      reply.type('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
      return {
        linkset: [
          {
            anchor: `${base}/`,
            'service-desc': [{ href: `${base}/openapi.yaml`, type: 'application/yaml', title: `OpenAPI 3.1 description, version ${API_VERSION}`, scopes: ALL_SCOPES }],
            'service-doc': [{ href: `${base}/docs`, type: 'text/markdown', title: 'Developer documentation' }],
            status: [{ href: `${base}/health`, type: 'application/json', title: 'Service status' }],
            'version-history': [{ href: `${base}/docs#changelog`, type: 'text/markdown', title: 'Changelog' }],
          },
        ],
      };
    },
  });

  // RFC 8414 metadata, so OAuth clients (openid-client's discovery, for one) find the token
  // endpoint from the issuer alone. The issuer is the base URL; with a path in it
  // (https://host/nordprop), RFC 8414 puts this document at https://host/.well-known/oauth-authorization-server/nordprop,
  // which the proxy in front must route here.
  app.get('/.well-known/oauth-authorization-server', {
    config: { access: 'public' },
    schema: operationSchema({
      operationId: 'getAuthorizationServerMetadata',
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414): the token endpoint, grant, client authentication and scopes',
      description: 'No token. The issuer is the base URL, so an OAuth client finds the token endpoint from the issuer alone.',
      tags: ['platform'],
      access: 'public',
      responses: {
        200: jsonResponse('The authorization server metadata', {
          type: 'object',
          required: ['issuer', 'token_endpoint', 'grant_types_supported', 'token_endpoint_auth_methods_supported', 'scopes_supported', 'response_types_supported'],
          properties: {
            issuer: { type: 'string', format: 'uri' },
            token_endpoint: { type: 'string', format: 'uri' },
            grant_types_supported: { type: 'array', items: { type: 'string', enum: ['client_credentials'] } },
            token_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string', enum: ['client_secret_basic', 'client_secret_post'] } },
            scopes_supported: { type: 'array', items: { type: 'string' } },
            response_types_supported: { type: 'array', items: { type: 'string' }, description: 'Empty: no authorization endpoint, client credentials only' },
            service_documentation: { type: 'string', format: 'uri' },
          },
        }),
      },
    }),
    handler: async () => ({
      issuer: ctx.baseUrl,
      token_endpoint: `${ctx.baseUrl}/auth/token`,
      grant_types_supported: ['client_credentials'],
      // RFC 6749 2.3.1: HTTP Basic or the form body (api/routes/auth.ts).
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ALL_SCOPES,
      // Required by RFC 8414; this server has no authorization endpoint, so no response type.
      response_types_supported: [],
      service_documentation: `${ctx.baseUrl}/docs`,
    }),
  });

  app.get('/openapi.yaml', {
    config: { access: 'public' },
    schema: operationSchema({
      operationId: 'getOpenApiDescription',
      summary: 'The OpenAPI 3.1 description of the running version',
      description: 'No token. Generated from the schemas the running routes validate and serialize with, so it describes exactly what runs.',
      tags: ['platform'],
      access: 'public',
      responses: { 200: jsonResponse('The OpenAPI document', { type: 'string' }, 'application/yaml') },
    }),
    handler: async (_request, reply: FastifyReply) => reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true })),
  });

  app.get('/docs', {
    config: { access: 'public' },
    schema: operationSchema({
      operationId: 'getDocumentation',
      summary: 'Developer documentation, with the changelog',
      description: 'No token. Markdown: authentication, errors, limits, idempotency, paging and what each resource holds.',
      tags: ['platform'],
      access: 'public',
      responses: { 200: jsonResponse('The documentation', { type: 'string' }, 'text/markdown') },
    }),
    handler: async (_request, reply: FastifyReply) =>
      reply.type('text/markdown; charset=utf-8').send(await readFile(path.join(PROJECT_ROOT, 'docs/api.md'), 'utf8')),
  });

  app.get('/health', {
    config: { access: 'public' },
    schema: operationSchema({
      operationId: 'getHealth',
      summary: 'Service status: UP when the store answers',
      description: 'No token. 200 with status UP and the API version when the store answers a query; a failure of the store is 500.',
      tags: ['platform'],
      access: 'public',
      responses: {
        200: jsonResponse('The service is up', {
          type: 'object',
          required: ['status', 'version'],
          properties: { status: { type: 'string', enum: ['UP'] }, version: { type: 'string' } },
        }),
      },
    }),
    handler: async () => {
      await ctx.db.query('SELECT 1');
      return { status: 'UP', version: API_VERSION };
    },
  });
}
