import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { SCOPES } from './auth/scopes.js';

export const API_VERSION = '0.3.0';

/**
 * The OpenAPI 3.1 description is generated from the route schemas by @fastify/swagger, so what
 * `/openapi.yaml` says is what runs. Shared schemas keep their `$id` as their component name.
 */
export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'nordprop: Property, Company and Area Data Service',
        version: API_VERSION,
        description:
          'One REST API over Norwegian and Swedish property, company and area data. Errors are Problem Details (RFC 9457); every response carries RateLimit headers.',
        license: { name: 'Proprietary', url: `${baseUrl}/docs` },
        contact: { name: 'nordprop', url: `${baseUrl}/docs` },
      },
      servers: [{ url: baseUrl }],
      tags: [
        { name: 'platform', description: 'Tokens, identity, the API catalog and this description' },
        { name: 'addresses', description: 'Address text and coordinates to properties' },
        { name: 'properties', description: 'Property data keyed on country and cadastre id' },
        { name: 'companies', description: 'Company data keyed on an ISO 6523 organization identifier' },
        { name: 'areas', description: 'Municipalities, grunnkretser and postal code areas' },
        { name: 'subscriptions', description: 'Change events delivered as signed CloudEvents webhooks' },
      ],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials (RFC 6749 section 4.4).',
            flows: { clientCredentials: { tokenUrl: `${baseUrl}/auth/token`, scopes: { ...SCOPES } } },
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
}
