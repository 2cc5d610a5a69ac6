import { isUtf8 } from 'node:buffer';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { ApiProblem } from './problem.js';

/**
 * Route validation with JSON Schema 2020-12 (the dialect of OpenAPI 3.1). Path and query values
 * arrive as text and are coerced to the declared number types; bodies are not coerced and unknown
 * properties are refused where a schema says `additionalProperties: false` (never silently dropped).
 */
export function createValidatorCompiler(sharedSchemas: readonly object[]): FastifySchemaCompiler<unknown> {
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv2020({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
    addFormats.default(ajv);
    for (const schema of sharedSchemas) ajv.addSchema(schema);
    return ajv;
  };
  const coercing = make(true);
  const exact = make(false);
  return ({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema as object);
}

// NUL, or a UTF-16 surrogate without its other half: text no client means, that PostgreSQL cannot
// store (text, jsonb) and that no UTF-8 encodes.
const UNSAFE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unsafeText(value: string): string | undefined {
  const found = UNSAFE.exec(value);
  if (!found) return undefined;
  return found[0] === '\0' ? 'must not contain a NUL character (U+0000)' : 'must not contain an unpaired UTF-16 surrogate';
}

const UNSAFE_EVERYWHERE = new RegExp(UNSAFE.source, 'g');

/** A JSON Pointer token (RFC 6901), the bad characters of a key replaced so that the location is printable. */
const pointerToken = (key: string | number) =>
  typeof key === 'number' ? String(key) : key.replace(/~/g, '~0').replace(/\//g, '~1').replace(UNSAFE_EVERYWHERE, '\uFFFD');

/** Where a value sits: its parent's path and its own key, spelled out only when something is found there. */
interface Path {
  parent: Path | string;
  key: string | number;
}

const spell = (path: Path | string): string => {
  const tokens: string[] = [];
  let at = path;
  for (; typeof at !== 'string'; at = at.parent) tokens.push(pointerToken(at.key));
  return [at, ...tokens.reverse()].join('/');
};

/**
 * The first unsafe string in `value` (keys too), walked without recursion: a body may nest deep.
 * Every request's headers pass through here, so a location is built only for what is reported.
 */
function findUnsafe(value: unknown, location: string): { location: string; message: string } | undefined {
  const stack: [unknown, Path | string][] = [[value, location]];
  while (stack.length) {
    const [item, at] = stack.pop()!;
    if (typeof item === 'string') {
      const message = unsafeText(item);
      if (message) return { location: spell(at), message };
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], { parent: at, key: i }]);
    } else if (item && typeof item === 'object') {
      for (const key of Object.keys(item)) {
        const message = unsafeText(key);
        if (message) return { location: spell({ parent: at, key }), message: `property name ${message}` };
        stack.push([(item as Record<string, unknown>)[key], { parent: at, key }]);
      }
    }
  }
  return undefined;
}

/**
 * HTTP Basic credentials (RFC 7617) as a token request sends them (RFC 6749 2.3.1: the id and the
 * secret each form-encoded, then joined by a colon, as UTF-8). Undefined without Basic
 * credentials; `malformed` when they are not base64 of UTF-8 text with a colon and valid
 * percent-encoding.
 */
export function basicCredentials(authorization: string | undefined): { id: string; secret: string } | 'malformed' | undefined {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!basic) return undefined;
  const bytes = Buffer.from(basic[1], 'base64');
  if (!isUtf8(bytes)) return 'malformed';
  const decoded = bytes.toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

/** Each text the API reads from a request, with where it came from (the locations of validation errors). */
function unsafeInput(request: FastifyRequest): { location: string; message: string } | undefined {
  const credentials = basicCredentials(request.headers.authorization);
  return (
    findUnsafe(request.params, 'params') ??
    findUnsafe(request.query, 'querystring') ??
    findUnsafe(request.headers, 'headers') ??
    (typeof credentials === 'object'
      ? findUnsafe(credentials.id, 'headers/authorization (HTTP Basic client id)') ?? findUnsafe(credentials.secret, 'headers/authorization (HTTP Basic client secret)')
      : undefined) ??
    findUnsafe(request.body, 'body')
  );
}

/**
 * Every request, before its route's schema is checked and before any handler reads the store:
 * a NUL or an unpaired surrogate anywhere in the path, the query, a header, HTTP Basic
 * credentials or the parsed body is 400 VALIDATION_FAILED naming where it is. (Bytes that are not
 * UTF-8 never get this far: the body parsers refuse them, charset-check.ts; so does the router in
 * a path.)
 */
export function registerTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const found = unsafeInput(request);
    done(found ? new ApiProblem(400, 'VALIDATION_FAILED', `${found.location}: ${found.message}`, {}, [found]) : undefined);
  });
}
