import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import type { LoggedResponse } from './response-log.js';

/**
 * Validates responses against the OpenAPI document the server serves, with an independent
 * validator (@hyperjump/json-schema, not the Ajv the server validates with): each response's
 * status must be documented for its operation, its media type listed, and its body valid
 * against that schema.
 */
export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> }>>;
  [key: string]: unknown;
}

export async function fetchOpenApi(baseUrl: string): Promise<{ text: string; document: OpenApiDocument }> {
  const response = await fetch(`${baseUrl}/openapi.yaml`);
  const text = await response.text();
  return { text, document: YAML.parse(text) };
}

const pointer = (...segments: string[]) => `#${segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('')}`;

/** The documented path template a concrete path matches; literal segments beat parameters. */
export function templateOf(document: OpenApiDocument, method: string, concretePath: string): string | undefined {
  const segments = concretePath.split('/');
  const candidates = Object.keys(document.paths).filter((template) => {
    if (!document.paths[template][method.toLowerCase()]) return false;
    const parts = template.split('/');
    return parts.length === segments.length && parts.every((part, i) => /^\{.+\}$/.test(part) || part === segments[i]);
  });
  const literalCount = (template: string) => template.split('/').filter((part) => !/^\{.+\}$/.test(part)).length;
  return candidates.sort((a, b) => literalCount(b) - literalCount(a))[0];
}

export async function validateResponses(document: OpenApiDocument, responses: readonly LoggedResponse[]): Promise<string[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-oas-'));
  // The file name ending tells hyperjump this is an OpenAPI document.
  const file = path.join(dir, 'nordprop.openapi.json');
  await writeFile(file, JSON.stringify(document));
  const failures: string[] = [];
  // One compiled validator per response schema: compiling is the slow part.
  const validators = new Map<string, Awaited<ReturnType<typeof validate>>>();
  try {
    for (const response of responses) {
      const where = `${response.method} ${response.path} → ${response.status}`;
      const template = templateOf(document, response.method, decodeURI(response.path));
      if (!template) {
        if (response.status !== 404 && response.status !== 400) failures.push(`${where}: no documented operation`);
        continue;
      }
      const operation = document.paths[template][response.method.toLowerCase()];
      const documented = operation.responses[String(response.status)];
      if (!documented) {
        failures.push(`${where}: status not documented for ${operation.operationId}`);
        continue;
      }
      // A redirect or 204 has no body to check.
      if (!documented.content || response.body === '') continue;
      const mediaType = response.contentType.split(';')[0].trim();
      if (!documented.content[mediaType]) {
        failures.push(`${where}: media type ${mediaType} not documented (${Object.keys(documented.content).join(', ')})`);
        continue;
      }
      if (typeof response.body === 'string') continue;
      const uri = `file://${file}${pointer('paths', template, response.method.toLowerCase(), 'responses', String(response.status), 'content', mediaType, 'schema')}`;
      let validator = validators.get(uri);
      if (!validator) validators.set(uri, (validator = await validate(uri)));
      const output = validator(response.body as never);
      if (!output.valid) failures.push(`${where}: body does not match the schema: ${JSON.stringify(response.body).slice(0, 400)}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return failures;
}
