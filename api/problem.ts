/**
 * Problem Details (RFC 9457) for every non-2xx answer outside the token endpoint. A handler throws
 * an ApiProblem; the error handler (error-handler.ts) renders it with the request's trace id.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    /** Stable machine code, SCREAMING_SNAKE_CASE. */
    readonly code: string,
    detail: string,
    readonly headers: Record<string, string> = {},
    /** For VALIDATION_FAILED: each failed check, where it failed. */
    readonly errors?: { location: string; message: string }[],
  ) {
    super(detail);
    this.name = 'ApiProblem';
  }

  get detail(): string {
    return this.message;
  }
}

/** One problem class per code: the path segment of `type` and its fixed title. */
const CLASSES: Record<string, { slug: string; title: string }> = {
  VALIDATION_FAILED: { slug: 'validation', title: 'The request is not valid' },
  MALFORMED_REQUEST: { slug: 'validation', title: 'The request is not valid' },
  IDEMPOTENCY_KEY_MISSING: { slug: 'validation', title: 'The request is not valid' },
  INVALID_PAGE_TOKEN: { slug: 'validation', title: 'The request is not valid' },
  WEBHOOK_URL_NOT_ALLOWED: { slug: 'validation', title: 'The request is not valid' },
  UNAUTHORIZED: { slug: 'unauthorized', title: 'Authentication is required' },
  INSUFFICIENT_SCOPE: { slug: 'forbidden', title: 'The token lacks a required scope' },
  NOT_FOUND: { slug: 'not-found', title: 'No such resource' },
  PROPERTY_NOT_FOUND: { slug: 'not-found', title: 'No such resource' },
  COUNTRY_NOT_SERVED: { slug: 'not-found', title: 'No such resource' },
  COMPANY_NOT_FOUND: { slug: 'not-found', title: 'No such resource' },
  AREA_NOT_FOUND: { slug: 'not-found', title: 'No such resource' },
  SUBSCRIPTION_NOT_FOUND: { slug: 'not-found', title: 'No such resource' },
  VALUATION_NOT_FOUND: { slug: 'not-found', title: 'No such resource' },
  UTILIZATION_NOT_FOUND: { slug: 'not-found', title: 'No such resource' },
  DOCUMENT_NOT_FOUND: { slug: 'not-found', title: 'No such resource' },
  METHOD_NOT_ALLOWED: { slug: 'method-not-allowed', title: 'Method not allowed' },
  IDEMPOTENCY_KEY_REUSED: { slug: 'conflict', title: 'The Idempotency-Key was used with another request' },
  SUBSCRIPTION_LIMIT_REACHED: { slug: 'conflict', title: 'The client has the most subscriptions allowed' },
  PAYLOAD_TOO_LARGE: { slug: 'payload-too-large', title: 'The request body is too large' },
  REQUEST_TIMEOUT: { slug: 'request-timeout', title: 'The request was not received in time' },
  HEADERS_TOO_LARGE: { slug: 'headers-too-large', title: 'The request header fields are too large' },
  UNSUPPORTED_MEDIA_TYPE: { slug: 'unsupported-media-type', title: 'Unsupported media type' },
  RATE_LIMITED: { slug: 'too-many-requests', title: 'Too many requests' },
  DAILY_LIMIT_EXCEEDED: { slug: 'too-many-requests', title: 'Too many requests' },
  SERVICE_UNAVAILABLE: { slug: 'service-unavailable', title: 'Service unavailable' },
  INTERNAL_ERROR: { slug: 'internal', title: 'Internal server error' },
};

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  traceId: string;
  errors?: { location: string; message: string }[];
}

export function problemDocument(
  baseUrl: string,
  problem: { status: number; code: string; detail: string },
  request: { id: string; url: string },
  errors?: ProblemDocument['errors'],
): ProblemDocument {
  const known = CLASSES[problem.code] ?? { slug: problem.status >= 500 ? 'internal' : 'bad-request', title: 'The request cannot be served' };
  return {
    type: `${baseUrl}/problems/${known.slug}`,
    title: known.title,
    status: problem.status,
    detail: problem.detail,
    // The path, without the query string (a page token or key there is not for logs).
    instance: request.url.split('?')[0],
    code: problem.code,
    traceId: request.id,
    ...(errors?.length ? { errors } : {}),
  };
}

export const notFound = (code: string, detail: string) => new ApiProblem(404, code, detail);
export const badRequest = (detail: string, code = 'VALIDATION_FAILED') => new ApiProblem(400, code, detail);
