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

  // For this transaction only (JIT and work_mem are the derive activity's, lib/bulk-settings.ts).
  // Text sorts go through strcoll under the database's C.UTF-8 collation: a merge join that
  // sorted the register again for every rule cost more than the rule itself, so hash joins.
  await q(`SET LOCAL enable_mergejoin = off`);

  // Company side, per distinct address text (many companies share one, and Sweden lists each
  // address several times): the street line parsed into street, number and letter.
  await q(
    `CREATE TEMP TABLE tenant_lines ON COMMIT DROP AS
     SELECT lines.address_lines, btrim(parts.m[1], ' ,.-') AS street, parts.m[2]::int AS house_number, lower(parts.m[3]) AS letter,
            upper(substring(array_to_string(lines.address_lines, ' ') FROM '\\m([HhKkLlUu][0-9]{4})\\M')) AS unit_number,
            -- A Norwegian matrikkel address (gnr/bnr[/fnr][-undernummer]) names the property itself, in the company's municipality.
            CASE WHEN $1 = 'NO' THEN regexp_match(street.line, '^\\s*(\\d{1,5})\\s*/\\s*(\\d{1,5})(?:\\s*/\\s*(\\d{1,4}))?(?:\\s*-\\s*\\d{1,4})?\\s*$') END AS matrikkel
     FROM (SELECT DISTINCT ca.address_lines FROM company_address ca
           WHERE ca.country = $1 AND ca.address_kind IN ('BUSINESS', 'VISITING') AND ca.address_lines IS NOT NULL) lines
     LEFT JOIN LATERAL (
       SELECT line FROM unnest(lines.address_lines) WITH ORDINALITY AS l(line, n)
       WHERE line ~ '[0-9]' AND line !~* ${NOT_A_STREET}
       ORDER BY n DESC LIMIT 1
     ) street ON true
     LEFT JOIN LATERAL regexp_match(street.line, '^([^0-9]+)([0-9]{1,5})\\s*([[:alpha:]]?)([^[:alnum:]]|$)') AS parts(m) ON true`,
    [country],
  );
  // Street names folded once per distinct spelling, company and register side together (a few
  // thousand spellings for hundreds of thousands of addresses; the folding is regular expressions).
  await q(
    `CREATE TEMP TABLE tenant_street ON COMMIT DROP AS
     SELECT street, street_match_key(street) AS street_key, street_match_name(street) AS street_name
     FROM (SELECT street FROM tenant_lines WHERE street IS NOT NULL
           UNION
           SELECT street_name FROM address WHERE country = $1 AND cadastre_id IS NOT NULL AND street_name IS NOT NULL) spellings`,
    [country],
  );
  // Register side: every address on a property (matrikkel addresses have no street: they match by property).
  await q(
    `CREATE TEMP TABLE tenant_register ON COMMIT DROP AS
     SELECT a.address_id, a.cadastre_id, a.municipality_code, coalesce(a.postal_code, '') AS postal_code, a.house_number,
            -- Sweden's house_letter carries the läge too ('A U2', ' UV1', '-14' of 12-14): only a lone letter is one.
            coalesce(lower(substring(a.house_letter FROM '^([[:alpha:]])([^[:alpha:]]|$)')), '') AS letter,
            s.street_key, s.street_name
     FROM address a LEFT JOIN tenant_street s ON s.street = a.street_name
     WHERE a.country = $1 AND a.cadastre_id IS NOT NULL`,
    [country],
  );
  // The municipality each postal code (and three-digit region) lies in, by the register's addresses,
  // so the postal-code-mismatch rules can stay within a municipality and still join on equality.
  await q(
    `CREATE TEMP TABLE tenant_postal_area ON COMMIT DROP AS
     SELECT DISTINCT ON (postal_code) postal_code, municipality_code FROM (
       SELECT postal_code, municipality_code, count(*) AS n FROM tenant_register GROUP BY 1, 2
       UNION ALL
       SELECT left(postal_code, 3), municipality_code, count(*) FROM tenant_register GROUP BY 1, 2
     ) counted
     ORDER BY postal_code, n DESC, municipality_code`,
  );
  // A Swedish business address names no municipality: the one its postal code lies in, by the
  // register's exact postal code first, then by its three-digit region (the prefixes share the
  // table without clashing: no postal code has three digits).
  await q(
    `CREATE TEMP TABLE tenant_input ON COMMIT DROP AS
     -- MATERIALIZED: the cleaned postal code is computed once, not once per join key and output.
     WITH x AS MATERIALIZED (
       SELECT ca.org_scheme, ca.org_id, ca.address_kind, ca.ordinal, ca.municipality_code,
              regexp_replace(coalesce(ca.postal_code, ''), '\\D', '', 'g') AS postal_code,
              s.street_key, s.street_name, l.house_number, l.letter, l.unit_number,
              CASE WHEN ca.municipality_code IS NOT NULL AND l.matrikkel IS NOT NULL THEN
                format('%s-%s-%s-%s-0', ca.municipality_code, l.matrikkel[1]::int, l.matrikkel[2]::int, coalesce(l.matrikkel[3], '0')::int) END AS cadastre_ref
       FROM company_address ca
       JOIN company c ON c.org_scheme = ca.org_scheme AND c.org_id = ca.org_id
       LEFT JOIN tenant_lines l ON l.address_lines = ca.address_lines
       LEFT JOIN tenant_street s ON s.street = l.street
       WHERE c.country = $1 AND c.deleted_date IS NULL AND ca.country = $1 AND ca.address_kind IN ('BUSINESS', 'VISITING')
     )
     SELECT (row_number() OVER ())::int AS input_id, x.org_scheme, x.org_id, x.address_kind, x.ordinal,
            coalesce(x.municipality_code, exact.municipality_code, region.municipality_code) AS municipality_code,
            x.municipality_code IS NOT NULL AS municipality_stated, x.postal_code,
            x.street_key, x.street_name, x.house_number, x.letter, x.unit_number, x.cadastre_ref
     FROM x
     LEFT JOIN tenant_postal_area exact ON x.municipality_code IS NULL AND x.postal_code <> '' AND exact.postal_code = x.postal_code
     LEFT JOIN tenant_postal_area region ON x.municipality_code IS NULL AND x.postal_code <> '' AND region.postal_code = left(x.postal_code, 3)`,
    [country],
  );
  const inputs = (await q(`SELECT count(*)::int AS n, count(*) FILTER (WHERE coalesce(street_key, '') = '' AND cadastre_ref IS NULL)::int AS unparsed FROM tenant_input`)).rows[0];
  await q(`DELETE FROM tenant_input WHERE coalesce(street_key, '') = '' AND cadastre_ref IS NULL`);
  await q(`ANALYZE tenant_register`);

  // Each rule for the addresses no earlier rule matched (those still pending); the candidates at
  // the best distance. Pending shrinks by rebuilding: the exact rule matches most addresses, and
  // copying the rest is cheaper than deleting those.
  await q(`CREATE TEMP TABLE tenant_pending ON COMMIT DROP AS SELECT * FROM tenant_input`);
  await q(`ANALYZE tenant_pending`);
  await q(`CREATE TEMP TABLE tenant_candidate (input_id int, rule_order int, address_id text, cadastre_id text) ON COMMIT DROP`);
  for (const [order, rule] of MATCH_RULES.entries()) {
    const pairs = `tenant_pending i JOIN tenant_register r ON ${rule.condition}`;
    await q(
      rule.distance === '0'
        ? `INSERT INTO tenant_candidate SELECT i.input_id, $1, r.address_id, r.cadastre_id FROM ${pairs}`
        : `INSERT INTO tenant_candidate
           SELECT input_id, $1, address_id, cadastre_id
           FROM (
             SELECT i.input_id, r.address_id, r.cadastre_id,
                    rank() OVER (PARTITION BY i.input_id ORDER BY (${rule.distance})::int) AS best
             FROM ${pairs}
           ) ranked
           WHERE best = 1`,
      [order],
    );
    if (order === MATCH_RULES.length - 1) break;
    await q(
      `CREATE TEMP TABLE tenant_still_pending ON COMMIT DROP AS
       SELECT * FROM tenant_pending p WHERE NOT EXISTS (SELECT 1 FROM tenant_candidate c WHERE c.rule_order = $1 AND c.input_id = p.input_id)`,
      [order],
    );
    await q(`DROP TABLE tenant_pending`);
    await q(`ALTER TABLE tenant_still_pending RENAME TO tenant_pending`);
    await q(`ANALYZE tenant_pending`);
  }

  // One property per company address, or none when the best candidates lie on several.
  await q(
    `CREATE TEMP TABLE tenant_match ON COMMIT DROP AS
     SELECT i.org_scheme, i.org_id, i.address_kind, i.ordinal, c.input_id, c.rule_order, c.cadastre_id, c.address_id, c.single_property
     FROM (SELECT input_id, min(rule_order) AS rule_order, min(cadastre_id) AS cadastre_id, min(address_id) AS address_id,
                  -- whether the candidates lie on one property (a count of distinct values would sort them)
                  min(cadastre_id) = max(cadastre_id) AS single_property
           FROM tenant_candidate GROUP BY input_id) c
     JOIN tenant_input i USING (input_id)`,
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
     SELECT $1, m.cadastre_id, c.org_scheme, c.org_id, c.name, c.country, $2, ${confidence}, c.updated_at,
            c.employees, c.nace_code, c.nace_name, coalesce(i.unit_number, u.unit_number), c.legal_form, c.founded_date,
            CASE WHEN m.address_kind = 'VISITING' AND w.started_date IS NOT NULL THEN w.started_date
                 WHEN c.is_sub_unit THEN coalesce(c.founded_date, c.registered_date)
                 ELSE coalesce(c.registered_date, c.founded_date) END,
            c.website,
            own_title.org_id IS NOT NULL OR parent_title.org_id IS NOT NULL,
            m.address_id, m.address_kind, ${ruleId}
     -- The match is chosen before the company's columns are joined (each join finds one row or
     -- none), so the sort carries narrow rows. Byte order groups the same rows as the database's
     -- collation and sorts them without strcoll.
     FROM (SELECT DISTINCT ON (cadastre_id COLLATE "C", org_scheme COLLATE "C", org_id COLLATE "C") *
           FROM tenant_match WHERE single_property
           ORDER BY cadastre_id COLLATE "C", org_scheme COLLATE "C", org_id COLLATE "C", rule_order, address_kind, ordinal) m
     JOIN company c ON c.org_scheme = m.org_scheme AND c.org_id = m.org_id
     JOIN tenant_input i ON i.input_id = m.input_id
     LEFT JOIN tenant_title own_title ON own_title.org_scheme = c.org_scheme AND own_title.org_id = c.org_id AND own_title.cadastre_id = m.cadastre_id
     LEFT JOIN tenant_title parent_title ON parent_title.org_scheme = c.org_scheme AND parent_title.org_id = c.parent_org_id AND parent_title.cadastre_id = m.cadastre_id
     LEFT JOIN tenant_only_unit u ON u.address_id = m.address_id
     LEFT JOIN tenant_workplace w ON m.address_kind = 'VISITING' AND w.org_scheme = m.org_scheme AND w.org_id = m.org_id AND w.ordinal = m.ordinal`,
    [country, VERIFICATION_SOURCE[country] ?? 'BUSINESS_REGISTER'],
  );
  const byRule = await q(
    `SELECT rule_order, count(*) FILTER (WHERE single_property)::int AS matched, count(*) FILTER (WHERE NOT single_property)::int AS ambiguous
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
  await client.query(`DROP TABLE IF EXISTS tenant_lines, tenant_street, tenant_pending, tenant_still_pending, tenant_input, tenant_register, tenant_candidate, tenant_match, tenant_only_unit, tenant_workplace, tenant_title, tenant_postal_area`);
}
