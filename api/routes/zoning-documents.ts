import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { ApiContext } from '../context.js';
import { sign, verifySignature } from '../../lib/secrets/signature.js';
import { ApiProblem } from '../problem.js';
import { emptyResponse, locationHeader, operationSchema } from '../schemas/operation.js';
import { documentSource } from '../store/zoning-plans.js';

/** A zoning plan document's download URL stays valid this long. */
export const DOCUMENT_URL_LIFETIME_S = 3600;

/** A document's path parameters: its plan's country, municipality and id, and its own id. */
const documentParams = Type.Object({
  country: Type.String({ pattern: '^[A-Z]{2}$' }),
  municipalityCode: Type.String({ pattern: '^[0-9]{4}$' }),
  planId: Type.String({ minLength: 1, maxLength: 200 }),
  documentId: Type.String({ minLength: 1, maxLength: 200 }),
});
type DocumentKey = Static<typeof documentParams>;

const documentPath = (k: DocumentKey) =>
  `/zoning-plan-documents/${k.country}/${k.municipalityCode}/${encodeURIComponent(k.planId)}/${encodeURIComponent(k.documentId)}`;

/** A time-limited URL carrying `exp` and `sig`, as the spec's ZoningPlan document describes. */
export function signedDocumentUrl(ctx: ApiContext, key: DocumentKey, now = Date.now()): string {
  const exp = Math.floor(now / 1000) + DOCUMENT_URL_LIFETIME_S;
  const path = documentPath(key);
  return `${ctx.baseUrl}${path}?exp=${exp}&sig=${sign(ctx.keys.documentUrl, `${path}?exp=${exp}`)}`;
}

/** The signed URL itself is the credential: no token; a valid signature redirects to the document. */
export function registerZoningDocumentRoute(fastify: FastifyInstance, ctx: ApiContext): void {
  // Request types inferred from the route schemas (schemas/operation.ts).
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/zoning-plan-documents/:country/:municipalityCode/:planId/:documentId', {
    config: { access: 'public' },
    schema: operationSchema({
      operationId: 'downloadZoningPlanDocument',
      summary: 'Download a zoning plan document through its signed, time-limited URL',
      description: 'No token: the signature (sig) over the path and its expiry (exp) is the credential. A valid, unexpired URL redirects (302) to the document at its source; an invalid or expired one is 404 (DOCUMENT_NOT_FOUND): fetch the zoning plan again for a fresh URL.',
      tags: ['properties'],
      access: 'public',
      params: documentParams,
      querystring: Type.Object({ exp: Type.Integer({ minimum: 0 }), sig: Type.String({ minLength: 1, maxLength: 100 }) }),
      responses: { 302: emptyResponse('Redirect to the document at its source; no body', { Location: locationHeader('The document at its source') }) },
      errors: [400, 404],
    }),
    handler: async (request, reply) => {
      const path = documentPath(request.params);
      const { exp, sig } = request.query;
      if (!verifySignature(ctx.keys.documentUrl, `${path}?exp=${exp}`, sig) || exp < Date.now() / 1000) {
        throw new ApiProblem(404, 'DOCUMENT_NOT_FOUND', 'the document URL is not valid or has expired; fetch the zoning plan again for a fresh one');
      }
      const source = await documentSource(ctx.db, request.params);
      if (!source) throw new ApiProblem(404, 'DOCUMENT_NOT_FOUND', 'no such zoning plan document');
      return reply.redirect(source, 302);
    },
  });
}
