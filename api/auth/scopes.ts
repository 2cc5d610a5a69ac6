/** The scopes of the spec, `<resource>.<action>`. */
export const SCOPES = {
  'properties.read': 'Read properties and their sub-resources',
  'companies.read': 'Read companies and their sub-resources',
  'owners.read': 'Person fields (name) on owners, buyers and sellers; additive',
  'areas.read': 'Read area statistics and land allocations',
  'subscriptions.write': 'Create, list and delete subscriptions',
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** A space-delimited scope string (RFC 6749 3.3) into its scopes; unknown names are returned apart. */
export function parseScopes(text: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(text.split(/[ ,]+/).filter(Boolean))];
  return { scopes: names.filter(isScope), unknown: names.filter((name) => !isScope(name)) };
}
