import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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
