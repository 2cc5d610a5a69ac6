import type pg from 'pg';

/**
 * The sandbox rule. A sandbox (test) client sees only the demo properties flagged in
 * api_demo_property, and everything that hangs off them: their sections, buildings, units,
 * owners, tenants, transactions, permits and certificates. It applies to every row the API
 * returns or accepts, whatever property the row comes from: a comparable sale is a row of the
 * property sold, not of the property it is compared with; a unit's address and building are
 * rows of the property they stand on; a company is known to a sandbox only through a demo
 * property. Each fragment below is a no-op (`NOT $sandbox OR …`) for live clients.
 */

/** SQL: the property or section (`country`, `cadastreId` expressions) is a demo property or a section of one. */
const demo = (country: string, cadastreId: string) =>
  `EXISTS (SELECT 1 FROM api_demo_property demo
           WHERE demo.country = ${country}
             AND demo.cadastre_id IN (${cadastreId}, (SELECT sec.property_cadastre_id FROM section sec WHERE sec.country = ${country} AND sec.cadastre_id = ${cadastreId})))`;

/**
 * SQL fragment: the property (or section) is visible to the caller; `sandbox` is a boolean
 * parameter, `country` and `cadastreId` SQL expressions.
 */
export const visibleTo = (sandbox: string, country: string, cadastreId: string) => `(NOT ${sandbox} OR ${demo(country, cadastreId)})`;

/**
 * SQL expression: a building number a row refers to (a unit's, a certificate's, a permit's),
 * or NULL for a sandbox when that building stands on a property it may not see. A number with
 * no building row is no other property's, and stays.
 */
export const visibleBuildingNumber = (sandbox: string, country: string, buildingNumber: string) =>
  `CASE WHEN ${sandbox} AND EXISTS (SELECT 1 FROM building vb WHERE vb.country = ${country} AND vb.building_number = ${buildingNumber}
                                      AND NOT ${demo('vb.country', 'vb.cadastre_id')})
        THEN NULL ELSE ${buildingNumber} END`;

/**
 * SQL fragment: the company (`scheme`, `id` expressions) is known to the caller. For a live
 * client: in the company register or holding title to a property. For a sandbox: it holds title
 * to a demo property (or a section of one), is a tenant of one, or a buyer or seller in one of
 * a demo property's transactions; a company that holds only other properties does not exist for
 * a sandbox (404), and a sandbox cannot subscribe to it.
 */
export const companyVisibleTo = (sandbox: string, scheme: string, id: string) => `(
  CASE WHEN NOT ${sandbox} THEN
    EXISTS (SELECT 1 FROM company WHERE org_scheme = ${scheme} AND org_id = ${id})
    OR EXISTS (SELECT 1 FROM owner WHERE org_scheme = ${scheme} AND org_id = ${id})
  ELSE
    EXISTS (SELECT 1 FROM owner o WHERE o.org_scheme = ${scheme} AND o.org_id = ${id} AND ${demo('o.country', 'o.cadastre_id')})
    OR EXISTS (SELECT 1 FROM tenant t WHERE t.org_scheme = ${scheme} AND t.org_id = ${id} AND ${demo('t.country', 't.cadastre_id')})
    OR EXISTS (SELECT 1 FROM transaction_party tp JOIN property_transaction pt ON pt.country = tp.country AND pt.transaction_id = tp.transaction_id
               WHERE tp.org_scheme = ${scheme} AND tp.org_id = ${id} AND ${demo('pt.country', 'pt.cadastre_id')})
  END)`;

/**
 * True when the company exists for the caller (companyVisibleTo): what GET
 * /companies/{scheme}/{id}/properties and a subscription to a company check before anything
 * else. A sandbox asking for a company that holds only non-demo properties gets 404.
 */
export async function companyVisible(db: pg.Pool | pg.PoolClient, scheme: string, id: string, sandbox: boolean): Promise<boolean> {
  const result = await db.query({
    name: 'api-company-visible',
    text: `SELECT 1 WHERE ${companyVisibleTo('$3::boolean', '$1::text', '$2::text')}`,
    values: [scheme, id, sandbox],
  });
  return result.rowCount === 1;
}
