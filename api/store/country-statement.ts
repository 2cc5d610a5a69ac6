/**
 * A statement whose `$1` is the country, with the country written in as a literal and the
 * other parameters renumbered ($2 → $1, …). Why: with the country a parameter, PostgreSQL's
 * generic plan for the hot lookups estimates their country and spatial conditions so much worse
 * than a custom plan that it never switches to it, and planned the statement again on every
 * request (2–3 ms, more than running it). With the literal the generic plan is as good as a
 * custom one and is cached after five executions. There are only the served countries, so each
 * statement has one text per country.
 */
export function countryStatement(sql: string, country: string): string {
  if (!/^[A-Z]{2}$/.test(country)) throw new Error(`not a country code: ${country}`);
  return sql.replace(/\$(\d+)\b/g, (_, n: string) => (n === '1' ? `'${country}'` : `$${Number(n) - 1}`));
}

const cache = new Map<string, string>();

/** `countryStatement`, computed once per statement name and country. */
export function countryStatementOnce(name: string, sql: string, country: string): { name: string; text: string } {
  const key = `${name}-${country}`;
  let text = cache.get(key);
  if (!text) cache.set(key, (text = countryStatement(sql, country)));
  return { name: key, text };
}
