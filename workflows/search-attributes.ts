// Moved to lib/temporal/search-attribute-keys.ts (the client, the dev server and workflows share
// the keys, so they sit on the ground floor). This re-export is for files still being edited
// elsewhere; import from lib/temporal and delete this file once none imports it.
export * from '../lib/temporal/search-attribute-keys.js';
