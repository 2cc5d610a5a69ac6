import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiProblem, problemDocument, type ProblemDocument } from './problem.js';

/** Renders any error as Problem Details; validation failures as 400 VALIDATION_FAILED with each failed check. */
export function sendProblem(baseUrl: string, error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { problem, errors } = toProblem(error);
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  if (problem instanceof ApiProblem) for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  const document = problemDocument(baseUrl, problem, request, errors);
  return reply.code(problem.status).type('application/problem+json').send(document);
}

function toProblem(error: unknown): { problem: ApiProblem | { status: number; code: string; detail: string }; errors?: ProblemDocument['errors'] } {
  if (error instanceof ApiProblem) return { problem: error };
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError.validation) {
    const context = fastifyError.validationContext ?? 'request';
    const errors = fastifyError.validation.map((item) => ({
      location: `${context}${item.instancePath || ''}${item.keyword === 'required' ? `/${(item.params as { missingProperty?: string }).missingProperty}` : ''}`,
      message: item.message ?? item.keyword,
    }));
    const missingKey = context === 'headers' && errors.some((e) => e.location === 'headers/idempotency-key');
    return {
      problem: missingKey
        ? { status: 400, code: 'IDEMPOTENCY_KEY_MISSING', detail: 'the Idempotency-Key header (a UUID) is required on this POST' }
        : { status: 400, code: 'VALIDATION_FAILED', detail: errors.map((e) => `${e.location}: ${e.message}`).join('; ') },
      errors,
    };
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { problem: { status: 413, code: 'PAYLOAD_TOO_LARGE', detail: fastifyError.message } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { problem: { status: fastifyError.statusCode ?? 415, code: fastifyError.statusCode === 400 ? 'VALIDATION_FAILED' : 'UNSUPPORTED_MEDIA_TYPE', detail: fastifyError.message } };
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    // Malformed JSON, an empty JSON body, a bad URL encoding: the request itself is not valid.
    const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'VALIDATION_FAILED';
    return { problem: { status: code === 'VALIDATION_FAILED' ? 400 : status, code, detail: fastifyError.message } };
  }
  return { problem: { status: 500, code: 'INTERNAL_ERROR', detail: 'the request failed on the server; quote the traceId to support' } };
}

export function registerErrorHandling(app: FastifyInstance, baseUrl: string): void {
  app.setErrorHandler((error, request, reply) => sendProblem(baseUrl, error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(baseUrl, new ApiProblem(404, 'NOT_FOUND', `no operation ${request.method} ${request.url.split('?')[0]}`), request, reply),
  );
}
