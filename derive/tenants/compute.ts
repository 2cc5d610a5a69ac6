import type pg from 'pg';
import type { DeriveContext, DeriveStats } from '../dataset.js';
import { MATCH_RULES } from './rules.js';

/** The register a country's companies come from, as `verification.source` names it. */
export const VERIFICATION_SOURCE: Record<string, string> = { NO: 'ENHETSREGISTERET', SE: 'FORETAGSREGISTRET' };

/**
 * Lines of a company address that are not where it sits: a c/o line, a post box.
 * The street line is the last line with a number that is none of these.
 */
const NOT_A_STREET = `'^\\s*(c/o|co\\s|postboks|boks|box|pb\\M|postbox|p\\.?\\s?o\\.?\\s?box)'`;

/**
 * Matches every current company's business, location and visiting address to the address
 * register, set-based: a few statements over temporary tables, whatever the register's size
 * (no per-company round trip). Rules in derive/tenants/rules.ts; the result is staged for the
 * framework to merge.
 */
export async function computeTenants({ client, country, stagingTable }: DeriveContext): Promise<DeriveStats> {
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);

  // Company side: the street line parsed into street, number and letter.
  await q(
    `CREATE TEMP TABLE tenant_input ON COMMIT DROP AS
     SELECT ca.org_scheme, ca.org_id, ca.address_kind, ca.ordinal, ca.municipality_code, ca.municipality_code IS NOT NULL AS municipality_stated,
            regexp_replace(coalesce(ca.postal_code, ''), '\\D', '', 'g') AS postal_code,
            street_match_key(btrim(parts.m[1], ' ,.-')) AS street_key, street_match_name(btrim(parts.m[1], ' ,.-')) AS street_name,
            parts.m[2]::int AS house_number, lower(parts.m[3]) AS letter,
            upper(substring(array_to_string(ca.address_lines, ' ') FROM '\\m([HhKkLlUu][0-9]{4})\\M')) AS unit_number,
            -- A Norwegian matrikkel address (gnr/bnr[/fnr][-undernummer] in the company's municipality) names the property itself.
            CASE WHEN $1 = 'NO' AND ca.municipality_code IS NOT NULL THEN
              (SELECT format('%s-%s-%s-%s-0', ca.municipality_code, g[1]::int, g[2]::int, coalesce(g[3], '0')::int)
               FROM regexp_match(street.line, '^\\s*(\\d{1,5})\\s*/\\s*(\\d{1,5})(?:\\s*/\\s*(\\d{1,4}))?(?:\\s*-\\s*\\d{1,4})?\\s*$') AS g WHERE g IS NOT NULL) END AS cadastre_ref
     FROM company_address ca
     JOIN company c ON c.org_scheme = ca.org_scheme AND c.org_id = ca.org_id
     LEFT JOIN LATERAL (
       SELECT line FROM unnest(ca.address_lines) WITH ORDINALITY AS l(line, n)
       WHERE line ~ '[0-9]' AND line !~* ${NOT_A_STREET}
       ORDER BY n DESC LIMIT 1
     ) street ON true
     LEFT JOIN LATERAL regexp_match(street.line, '^([^0-9]+)([0-9]{1,5})\\s*([[:alpha:]]?)([^[:alnum:]]|$)') AS parts(m) ON true
     WHERE c.country = $1 AND c.deleted_date IS NULL AND ca.country = $1 AND ca.address_kind IN ('BUSINESS', 'VISITING')`,
    [country],
  );
  const inputs = (await q(`SELECT count(*)::int AS n, count(*) FILTER (WHERE coalesce(street_key, '') = '' AND cadastre_ref IS NULL)::int AS unparsed FROM tenant_input`)).rows[0];
  await q(`DELETE FROM tenant_input WHERE coalesce(street_key, '') = '' AND cadastre_ref IS NULL`);

  // Register side: every address on a property (matrikkel addresses have no street: they match by property).
  await q(
    `CREATE TEMP TABLE tenant_register ON COMMIT DROP AS
     SELECT address_id, cadastre_id, municipality_code, coalesce(postal_code, '') AS postal_code, house_number,
            -- Sweden's house_letter carries the läge too ('A U2', ' UV1', '-14' of 12-14): only a lone letter is one.
            coalesce(lower(substring(house_letter FROM '^([[:alpha:]])([^[:alpha:]]|$)')), '') AS letter,
            street_match_key(street_name) AS street_key, street_match_name(street_name) AS street_name
     FROM address
     WHERE country = $1 AND cadastre_id IS NOT NULL`,
    [country],
  );
  // A Swedish business address names no municipality: the one its postal code lies in, by the
  // register (else by the postal code's first three digits), so the postal-code-mismatch rules
  // can stay within a municipality and still join on equality.
  await q(
    `CREATE TEMP TABLE tenant_postal_area ON COMMIT DROP AS
     SELECT DISTINCT ON (postal_code) postal_code, municipality_code FROM (
       SELECT postal_code, municipality_code, count(*) AS n FROM tenant_register GROUP BY 1, 2
       UNION ALL
       SELECT left(postal_code, 3), municipality_code, count(*) FROM tenant_register GROUP BY 1, 2
     ) counted
     ORDER BY postal_code, n DESC, municipality_code`,
  );
  // The exact postal code first, then its three-digit region (the prefixes share the table
  // without clashing: no postal code has three digits).
  for (const code of ['i.postal_code', 'left(i.postal_code, 3)']) {
    await q(
      `UPDATE tenant_input i SET municipality_code = a.municipality_code FROM tenant_postal_area a
       WHERE i.municipality_code IS NULL AND i.postal_code <> '' AND a.postal_code = ${code}`,
    );
  }
  await q(`ANALYZE tenant_input`);
  await q(`ANALYZE tenant_register`);

  // Each rule for the addresses no earlier rule matched; the candidates at the best distance.
  await q(
    `CREATE TEMP TABLE tenant_candidate (org_scheme text, org_id text, address_kind text, ordinal int, rule_order int,
       distance int, address_id text, cadastre_id text) ON COMMIT DROP`,
  );
  for (const [order, rule] of MATCH_RULES.entries()) {
    await q(
      `INSERT INTO tenant_candidate
       SELECT org_scheme, org_id, address_kind, ordinal, $1, distance, address_id, cadastre_id
       FROM (
         SELECT i.org_scheme, i.org_id, i.address_kind, i.ordinal, (${rule.distance})::int AS distance, r.address_id, r.cadastre_id,
                rank() OVER (PARTITION BY i.org_scheme, i.org_id, i.address_kind, i.ordinal ORDER BY (${rule.distance})::int) AS best
         FROM tenant_input i JOIN tenant_register r ON ${rule.condition}
         WHERE NOT EXISTS (SELECT 1 FROM tenant_candidate c
                           WHERE c.org_scheme = i.org_scheme AND c.org_id = i.org_id AND c.address_kind = i.address_kind AND c.ordinal = i.ordinal)
       ) ranked
       WHERE best = 1`,
      [order],
    );
  }

  // One property per company address, or none when the best candidates lie on several.
  await q(
    `CREATE TEMP TABLE tenant_match ON COMMIT DROP AS
     SELECT org_scheme, org_id, address_kind, ordinal, min(rule_order) AS rule_order, min(cadastre_id) AS cadastre_id,
            min(address_id) AS address_id, count(DISTINCT cadastre_id) AS properties
     FROM tenant_candidate GROUP BY org_scheme, org_id, address_kind, ordinal`,
  );
  const confidence = `(ARRAY[${MATCH_RULES.map((r) => `'${r.confidence}'`).join(', ')}])[m.rule_order + 1]`;
  const ruleId = `(ARRAY[${MATCH_RULES.map((r) => `'${r.id}'`).join(', ')}])[m.rule_order + 1]`;

  // What the tenant row carries beside the match, each as one set (no per-row lookups): the unit
  // at an address that has only one, the start date of the workplace a visiting address belongs
  // to (SCB numbers them in workplace order), and the properties each organization holds title
  // to (a section's owner holds a share of its property).
  await q(
    `CREATE TEMP TABLE tenant_only_unit ON COMMIT DROP AS
     SELECT address_id, min(unit_number) AS unit_number FROM unit
     WHERE country = $1 AND address_id IN (SELECT address_id FROM tenant_match)
     GROUP BY address_id HAVING count(*) = 1`,
    [country],
  );
  await q(
    `CREATE TEMP TABLE tenant_workplace ON COMMIT DROP AS
     SELECT org_scheme, org_id, (row_number() OVER (PARTITION BY org_scheme, org_id ORDER BY workplace_id) - 1)::int AS ordinal, started_date
     FROM company_workplace WHERE country = $1`,
    [country],
  );
  await q(
    `CREATE TEMP TABLE tenant_title ON COMMIT DROP AS
     SELECT DISTINCT o.org_scheme, o.org_id, coalesce(s.property_cadastre_id, o.cadastre_id) AS cadastre_id
     FROM owner o LEFT JOIN section s ON s.country = o.country AND s.cadastre_id = o.cadastre_id
     WHERE o.country = $1 AND o.kind = 'ORGANIZATION' AND o.org_id IS NOT NULL`,
    [country],
  );
  await q(`ANALYZE tenant_title`);
  await q(`ANALYZE tenant_match`);

  // A company on a property once, by its best-matching address (business before visiting).
  const staged = await q(
    `INSERT INTO ${stagingTable} (country, cadastre_id, org_scheme, org_id, name, org_country, verification_source, confidence, last_seen_at,
       employees, nace_code, nace_name, unit_number, legal_form, founded_date, moved_in_date, website, is_owner, address_id, address_kind, match_rule)
     SELECT DISTINCT ON (m.cadastre_id, m.org_scheme, m.org_id)
            $1, m.cadastre_id, c.org_scheme, c.org_id, c.name, c.country, $2, ${confidence}, c.updated_at,
            c.employees, c.nace_code, c.nace_name, coalesce(i.unit_number, u.unit_number), c.legal_form, c.founded_date,
            CASE WHEN m.address_kind = 'VISITING' AND w.started_date IS NOT NULL THEN w.started_date
                 WHEN c.is_sub_unit THEN coalesce(c.founded_date, c.registered_date)
                 ELSE coalesce(c.registered_date, c.founded_date) END,
            c.website,
            own_title.org_id IS NOT NULL OR parent_title.org_id IS NOT NULL,
            m.address_id, m.address_kind, ${ruleId}
     FROM tenant_match m
     JOIN company c ON c.org_scheme = m.org_scheme AND c.org_id = m.org_id
     JOIN tenant_input i ON i.org_scheme = m.org_scheme AND i.org_id = m.org_id AND i.address_kind = m.address_kind AND i.ordinal = m.ordinal
     LEFT JOIN tenant_title own_title ON own_title.org_scheme = c.org_scheme AND own_title.org_id = c.org_id AND own_title.cadastre_id = m.cadastre_id
     LEFT JOIN tenant_title parent_title ON parent_title.org_scheme = c.org_scheme AND parent_title.org_id = c.parent_org_id AND parent_title.cadastre_id = m.cadastre_id
     LEFT JOIN tenant_only_unit u ON u.address_id = m.address_id
     LEFT JOIN tenant_workplace w ON m.address_kind = 'VISITING' AND w.org_scheme = m.org_scheme AND w.org_id = m.org_id AND w.ordinal = m.ordinal
     WHERE m.properties = 1
     ORDER BY m.cadastre_id, m.org_scheme, m.org_id, m.rule_order, m.address_kind, m.ordinal`,
    [country, VERIFICATION_SOURCE[country] ?? 'BUSINESS_REGISTER'],
  );
  const byRule = await q(
    `SELECT rule_order, count(*) FILTER (WHERE properties = 1)::int AS matched, count(*) FILTER (WHERE properties > 1)::int AS ambiguous
     FROM tenant_match GROUP BY rule_order ORDER BY rule_order`,
  );
  const matched = Object.fromEntries(byRule.rows.map((row) => [MATCH_RULES[row.rule_order].id, row.matched]));
  const ambiguous = byRule.rows.reduce((n, row) => n + row.ambiguous, 0);
  const matchedTotal = byRule.rows.reduce((n, row) => n + row.matched, 0);
  await dropTemporary(client);
  return {
    rowsRead: inputs.n,
    details: {
      companyAddresses: inputs.n,
      withoutStreetLine: inputs.unparsed,
      matchedByRule: matched,
      ambiguous,
      unmatched: inputs.n - inputs.unparsed - matchedTotal - ambiguous,
      tenants: staged.rowCount ?? 0,
    },
  };
}

/** ON COMMIT DROP removes them at the end of the transaction; dropped now so a second compute in it starts clean. */
async function dropTemporary(client: pg.PoolClient): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS tenant_input, tenant_register, tenant_candidate, tenant_match, tenant_only_unit, tenant_workplace, tenant_title, tenant_postal_area`);
}
