import type { Country } from './country.js';

/** Which live rows a snapshot replaces: the whole country, or only the municipalities it covers. */
export interface PublishScope {
  country: Country;
  municipalities: string[] | null;
}
