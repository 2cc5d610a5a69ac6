/** A parsed JSON object (not an array, not null), as the registers' JSON records and API pages are. */
export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
