import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import { sign, verifySignature } from '../../lib/secrets/signature.js';
import { ApiProblem } from '../problem.js';
import { emptyResponse, locationHeader, operationSchema } from '../schemas/operation.js';
import { documentSource } from '../store/zoning-plans.js';

/** A zoning plan document's download URL stays valid this long. */
export const DOCUMENT_URL_LIFETIME_S = 3600;

interface DocumentKey {
  country: string;
  municipalityCode: string;
  planId: string;
  documentId: string;
}

const documentPath = (k: DocumentKey) =>
  `/zoning-plan-documents/${k.country}/${k.municipalityCode}/${encodeURIComponent(k.planId)}/${encodeURIComponent(k.documentId)}`;

/** A time-limited URL carrying `exp` and `sig`, as the spec's ZoningPlan document describes. */
export function signedDocumentUrl(ctx: ApiContext, key: DocumentKey, now = Date.now()): string {
  const exp = Math.floor(now / 1000) + DOCUMENT_URL_LIFETIME_S;
  const path = documentPath(key);
  return `${ctx.baseUrl}${path}?exp=${exp}&sig=${sign(ctx.keys.documentUrl, `${path}?exp=${exp}`)}`;
}

type DocumentRequest = FastifyRequest<{ Params: DocumentKey; Querystring: { exp: number; sig: string } }>;

/** The signed URL itself is the credential: no token; a valid signature redirects to the document. */
export function registerZoningDocumentRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.get('/zoning-plan-documents/:country/:municipalityCode/:planId/:documentId', {
    config: { access: 'public' },
    schema: operationSchema({
      operationId: 'downloadZoningPlanDocument',
      summary: 'Download a zoning plan document through its signed, time-limited URL',
      description: 'No token: the signature (sig) over the path and its expiry (exp) is the credential. A valid, unexpired URL redirects (302) to the document at its source; an invalid or expired one is 404 (DOCUMENT_NOT_FOUND): fetch the zoning plan again for a fresh URL.',
      tags: ['properties'],
      access: 'public',
      params: {
        type: 'object',
        required: ['country', 'municipalityCode', 'planId', 'documentId'],
        properties: {
          country: { type: 'string', pattern: '^[A-Z]{2}$' },
          municipalityCode: { type: 'string', pattern: '^[0-9]{4}$' },
          planId: { type: 'string', minLength: 1, maxLength: 200 },
          documentId: { type: 'string', minLength: 1, maxLength: 200 },
        },
      },
      querystring: {
        type: 'object',
        required: ['exp', 'sig'],
        properties: { exp: { type: 'integer', minimum: 0 }, sig: { type: 'string', minLength: 1, maxLength: 100 } },
      },
      responses: { 302: emptyResponse('Redirect to the document at its source; no body', { Location: locationHeader('The document at its source') }) },
      errors: [400, 404],
    }),
    handler: async (request: DocumentRequest, reply: FastifyReply) => {
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
