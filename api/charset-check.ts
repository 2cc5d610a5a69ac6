import { isUtf8 } from 'node:buffer';
import querystring from 'node:querystring';
import type { FastifyInstance } from 'fastify';
import { ApiProblem, badRequest } from './problem.js';

// JSON is UTF-8 (RFC 8259); a body declared in another charset is refused rather than misread.
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

export function registerCharsetCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset && !/^utf-?8$/i.test(charset)) {
      throw new ApiProblem(415, 'UNSUPPORTED_MEDIA_TYPE', `request bodies must be UTF-8, not ${charset}`);
    }
  });
}

/** The body as text, or 400: bytes that are not UTF-8 are refused, never replaced with U+FFFD. */
function utf8Text(body: Buffer, kind: string): string {
  if (!isUtf8(body)) throw badRequest(`the ${kind} body is not valid UTF-8`);
  return body.toString('utf8');
}

/**
 * A form body's fields; their percent-encoding must decode to UTF-8 too (`%FF` is refused, not
 * kept or replaced). Node's parser falls back to a lenient decoder when ours throws, so the
 * failure is noted and refused after it.
 */
function formFields(text: string): Record<string, string | string[]> {
  let invalid: string | undefined;
  const strict = (component: string) => {
    try {
      return decodeURIComponent(component);
    } catch {
      invalid ??= component;
      return component;
    }
  };
  const fields = querystring.parse(text, '&', '=', { decodeURIComponent: strict, maxKeys: 0 });
  if (invalid !== undefined) throw badRequest(`the form body holds a percent-encoding that does not decode to UTF-8: ${JSON.stringify(invalid.slice(0, 100))}`);
  return fields as Record<string, string | string[]>;
}

/**
 * The parsers of the two body types the API takes, over the raw bytes: JSON with Fastify's own
 * parser (prototype poisoning refused), forms (a field given twice becomes an array, which no
 * schema here accepts). Fastify's JSON parser and @fastify/formbody decode the bytes leniently.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8Text(body as Buffer, 'JSON');
    } catch (error) {
      done(error as ApiProblem, undefined);
      return;
    }
    json(request, text, done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      const text = utf8Text(body as Buffer, 'form');
      done(null, formFields(text));
    } catch (error) {
      done(error as ApiProblem, undefined);
    }
  });
}
