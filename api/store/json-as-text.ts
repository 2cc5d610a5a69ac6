import pg from 'pg';

const JSON_OID = 114;

/**
 * Query option: the statement's `json` columns as the text PostgreSQL sent, every other type
 * parsed as usual. For answers PostgreSQL renders whole: parsing them and serializing them again
 * cost the API process about a quarter of a hot request's CPU (docs/api.md, "Benchmark").
 */
export const JSON_AS_TEXT = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === JSON_OID ? asText : pg.types.getTypeParser(oid, format)),
} as pg.CustomTypesConfig;

function asText(text: string): string {
  return text;
}
