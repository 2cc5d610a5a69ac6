/** A value for one staging column; arrays become PostgreSQL text arrays. */
export type CellValue = string | number | boolean | null | readonly string[];
