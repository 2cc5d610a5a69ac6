/**
 * SQL fragment: the property ($country, $cadastreId expressions) is visible to the caller. A
 * sandbox client sees only the flagged demo properties; `$sandbox` is a boolean parameter.
 */
export const visibleTo = (sandbox: string, country: string, cadastreId: string) =>
  `(NOT ${sandbox} OR EXISTS (SELECT 1 FROM api_demo_property demo WHERE demo.country = ${country} AND demo.cadastre_id = ${cadastreId}))`;
