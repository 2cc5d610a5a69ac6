import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
  if (error instanceof ApiProblem) return { problem: error, errors: error.errors };
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError.validation) {
    const context = fastifyError.validationContext ?? 'request';
    const errors = fastifyError.validation.map((item) => {
      // An unknown parameter or field is named in the location, as a missing one is.
      const named = item.keyword === 'required' ? (item.params as { missingProperty?: string }).missingProperty
        : item.keyword === 'additionalProperties' ? (item.params as { additionalProperty?: string }).additionalProperty : undefined;
      const unknownQuery = context === 'querystring' && item.keyword === 'additionalProperties';
      return {
        location: `${context}${item.instancePath || ''}${named === undefined ? '' : `/${named}`}`,
        message: unknownQuery ? 'is not a query parameter of this operation' : (item.message ?? item.keyword),
      };
    });
    if (context === 'headers') {
      // A missing key and a key that is not a UUID are told apart: the client fixes each differently.
      const keyError = fastifyError.validation.find((item) => idempotencyKeyError(item) !== undefined);
      if (keyError && idempotencyKeyError(keyError) === 'missing') {
        return { problem: { status: 400, code: 'IDEMPOTENCY_KEY_MISSING', detail: 'the Idempotency-Key header (a UUID) is required on this POST' }, errors };
      }
      if (keyError) {
        const invalid = [{ location: 'headers/idempotency-key', message: 'must be a UUID (RFC 9562), for example 3f2c8a4e-7d1b-4c9e-a0f5-2b6d8e1c4a7f' }];
        return { problem: { status: 400, code: 'VALIDATION_FAILED', detail: `the Idempotency-Key header ${invalid[0].message}` }, errors: invalid };
      }
    }
    return {
      problem: { status: 400, code: 'VALIDATION_FAILED', detail: errors.map((e) => `${e.location}: ${e.message}`).join('; ') },
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

/** Whether a header validation error is about the Idempotency-Key: it is absent, or present but not valid. */
function idempotencyKeyError(item: { keyword: string; instancePath?: string; params?: unknown }): 'missing' | 'invalid' | undefined {
  if (item.keyword === 'required' && (item.params as { missingProperty?: string }).missingProperty === 'idempotency-key') return 'missing';
  if (item.instancePath === '/idempotency-key') return 'invalid';
  return undefined;
}

export function registerErrorHandling(app: FastifyInstance, baseUrl: string): void {
  app.setErrorHandler((error, request, reply) => sendProblem(baseUrl, error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(baseUrl, new ApiProblem(404, 'NOT_FOUND', `no operation ${request.method} ${request.url.split('?')[0]}`), request, reply),
  );
}

/**
 * After answering a request whose body it did not read (a 413, a request the parser refused),
 * the server reads and drops what the client still sends, for this long and up to this much,
 * before it closes: closing with unread bytes resets the connection, and a client still sending
 * would then lose the answer instead of reading it.
 */
export const LINGER = { ms: 10_000, bytes: 16 * 1024 * 1024 };

/** Reads and drops `stream`'s bytes within LINGER; past it, the connection is closed. */
export function lingerOn(stream: NodeJS.ReadableStream, socket: Socket): void {
  let received = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER.ms).unref();
  const done = () => clearTimeout(timer);
  stream.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > LINGER.bytes) socket.destroy();
  });
  stream.once('end', done);
  socket.once('close', done);
  stream.resume();
}

const refused = new WeakSet<Socket>();

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (CR, LF or NUL in a header,
 * an unknown method, a raw 0xFF in the URL, Transfer-Encoding with Content-Length, a bad
 * Content-Length, headers over 16 KiB, a request not received in time) never reaches the app, so
 * the answer is written to the socket here, as Problem Details like every other error. The
 * request target is the `instance` when the parser read a clean one; else the trace id as a URN.
 */
export function clientErrorHandler(baseUrl: string) {
  return function answerClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
    // The parser fails again on each further chunk of a refused request: already answered, lingering.
    if (refused.has(socket)) return;
    // The peer is gone (ECONNRESET) or the socket was already answered: nothing to write to.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // Part of an answer to an earlier request on this connection was written: another would corrupt it.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, code] =
      error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'HEADERS_TOO_LARGE'] : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'REQUEST_TIMEOUT'] : [400, 'MALFORMED_REQUEST'];
    const traceId = randomUUID();
    const reason = (error as ConnectionError & { reason?: string }).reason ?? error.message;
    const detail = status === 408 ? 'the request was not received in time' : `the request is not valid HTTP/1.1 (${error.code}: ${reason})`;
    const body = JSON.stringify(problemDocument(baseUrl, { status, code, detail }, { id: traceId, url: requestTarget(error) ?? `urn:uuid:${traceId}` }));
    this.log.info({ traceId, code: error.code }, 'HTTP parser refused a request');
    refused.add(socket);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
    lingerOn(socket, socket);
  };
}

/** The path of the request line the parser failed on, when it is printable ASCII. */
function requestTarget(error: ConnectionError): string | undefined {
  const packet: unknown = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return undefined;
  const line = /^[A-Z]+ (\/[\x21-\x7e]*) HTTP\/1\.[01]\r?\n/.exec(packet.subarray(0, 8192).toString('latin1'));
  return line?.[1];
}
