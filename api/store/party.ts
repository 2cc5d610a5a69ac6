/**
 * SQL expression: one owner / buyer / seller row (alias `row`) as the API's Owner. The person
 * table, where names live, is read only for a caller holding owners.read; without it the name
 * is never selected (birthYear stays, it is on the row).
 */
export function partyJson(row: string, withNames: boolean, registeredAt = 'NULL'): string {
  const name = withNames ? `(SELECT pn.name FROM person pn WHERE pn.country = ${row}.country AND pn.person_id = ${row}.person_id)` : 'NULL';
  // A registration day stays a day (api_registered_at, schema/1763902000100_api-registered-at-dates.sql).
  const registered = registeredAt === 'NULL' ? 'NULL' : `api_registered_at(${registeredAt}, ${row}.country)`;
  return `api_party(${row}.kind, ${name}, ${row}.birth_year, ${row}.org_scheme, ${row}.org_id, ${row}.org_name, ${row}.org_country,
         ${row}.share_numerator, ${row}.share_denominator, ${registered})`;
}
