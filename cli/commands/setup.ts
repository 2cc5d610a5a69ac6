import { loadConfig } from '../../lib/config.js';
import { ensureDatabase, migrate } from '../../lib/migrate.js';
import { connectClient } from '../../lib/temporal/connection.js';
import { ensureSearchAttributes } from '../../lib/temporal/search-attributes.js';
import { printJson } from '../output.js';

/** Creates the database if needed, applies migrations, registers search attributes. Idempotent. */
export async function setupCommand(options: { json: boolean; temporal: boolean }): Promise<number> {
  const config = loadConfig();
  const log = options.json ? () => undefined : (message: string) => console.log(message);
  const created = await ensureDatabase(config.databaseUrl);
  const applied = await migrate(config.databaseUrl);
  log(`database ${new URL(config.databaseUrl).pathname.slice(1)}: ${created ? 'created' : 'exists'}; ${applied.length ? `applied ${applied.join(', ')}` : 'migrations up to date'}`);
  let searchAttributes = 'skipped';
  if (options.temporal) {
    const { client, connection } = await connectClient(config);
    try {
      await ensureSearchAttributes(client, config.temporalNamespace);
      searchAttributes = 'registered';
      log(`temporal ${config.temporalAddress}: search attributes registered on namespace ${config.temporalNamespace}`);
    } finally {
      await connection.close();
    }
  }
  if (options.json) printJson({ databaseCreated: created, migrationsApplied: applied, searchAttributes });
  return 0;
}
