/**
 * Every response the API suite receives, kept per test file, so a file can validate all of them
 * against the served OpenAPI description (openapi-check.ts) before it ends.
 */
export interface LoggedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: unknown;
}

const responses: LoggedResponse[] = [];

export function recordResponse(response: LoggedResponse): void {
  responses.push(response);
}

export function loggedResponses(): readonly LoggedResponse[] {
  return responses;
}
