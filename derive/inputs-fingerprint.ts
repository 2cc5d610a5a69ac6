import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Country } from '../lib/domain/country.js';
import { lastChangesDigest } from '../lib/run-ledger.js';

/**
 * What a derived dataset's result depends on, as one string: the day it is computed for, the
 * last change every source of the country (and every dataset it reads) published, the schema's
 * last migration and the derive code itself. Equal fingerprints mean an equal result, so the
 * nightly refresh skips a dataset whose fingerprint is that of its last computation (the
 * datasets are most of an unchanged night's time). A hand edit of a live table is not seen:
 * `nordprop derive` always computes.
 */
export async function inputsFingerprint(client: pg.Pool | pg.PoolClient, country: Country, asOf: string, dependencyLedgerIds: string[]): Promise<string> {
  return [asOf, await storeFingerprint(client, country, dependencyLedgerIds)].join('|');
}

/**
 * The same without the day: what a computation that does not count back from asOf depends on
 * (the property features several datasets share, derive/cached-inputs.ts).
 */
export async function storeFingerprint(client: pg.Pool | pg.PoolClient, country: Country, dependencyLedgerIds: string[] = []): Promise<string> {
  const changes = await lastChangesDigest(client, country, dependencyLedgerIds);
  return [changes ?? 'no-changes', await codeFingerprint(client)].join('|');
}

/** The schema's last migration and the derive code: what every derived result depends on beside its inputs. */
export async function codeFingerprint(client: pg.Pool | pg.PoolClient): Promise<string> {
  const schema = await client.query<{ name: string }>(`SELECT name FROM schema_migrations ORDER BY run_on DESC, id DESC LIMIT 1`);
  return [schema.rows[0]?.name ?? 'no-schema', await deriveCodeDigest()].join('|');
}

let codeDigest: Promise<string> | undefined;

/** A digest of every file of the derive code (compiled or not): a deployed change recomputes. */
function deriveCodeDigest(): Promise<string> {
  codeDigest ??= (async () => {
    const root = path.dirname(fileURLToPath(import.meta.url));
    const files = (await readdir(root, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && /\.(js|ts)$/.test(entry.name))
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort();
    const hash = createHash('sha256');
    for (const file of files) hash.update(path.relative(root, file)).update('\0').update(await readFile(file)).update('\0');
    return hash.digest('hex').slice(0, 16);
  })();
  return codeDigest;
}
