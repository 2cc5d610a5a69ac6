/**
 * Rent per m² per year, by the income approach run backwards: no register in nordprop records
 * rents, so a property's market rent is its estimated value times the gross initial yield
 * investors ask of its kind of property, divided by its size (the floor area the valuation
 * uses: usable area in Norway, the main building's footprint in Sweden). low and high come from
 * the value's interval the same way. The yields are typical prime-to-secondary gross yields of
 * the Nordic markets; they are assumptions, stated here and in docs/derived/valuations.md.
 */

/** Gross yield by building class (Norwegian bygningstype first digit, Swedish objekttyp). */
export const GROSS_YIELD: Record<string, number> = {
  // Norway
  '1': 0.04, // dwellings (holiday homes: HOLIDAY_YIELD)
  '2': 0.07, // industry and storage
  '3': 0.06, // offices and commerce
  '4': 0.07, // transport and communication
  '5': 0.065, // hotels and restaurants
  '6': 0.065, // culture and education
  '7': 0.06, // health and care
  '8': 0.065, // emergency services
  // Sweden
  Bostad: 0.04,
  Verksamhet: 0.06,
  Industri: 0.07,
  Samhällsfunktion: 0.06,
  Ekonomibyggnad: 0.07,
};
export const HOLIDAY_YIELD = 0.03;
export const DEFAULT_YIELD = 0.065;

/** SQL: the gross yield of a row with `building_type` (and `property_type`) under alias. */
export function grossYieldSql(alias: string): string {
  const cases = Object.entries(GROSS_YIELD).map(([cls, y]) => `WHEN '${cls.replace(/'/g, "''")}' THEN ${y}`).join(' ');
  return `(CASE WHEN ${alias}.property_type = 'EIERSEKSJON' THEN ${GROSS_YIELD['1']}
               WHEN ${alias}.building_type LIKE '16%' OR ${alias}.building_type LIKE '17%' THEN ${HOLIDAY_YIELD}
               ELSE coalesce(CASE building_class(${alias}.building_type) ${cases} END, ${DEFAULT_YIELD}) END)`;
}
