import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

/**
 * The API's one secret outside the database: it encrypts webhook signing secrets (so a dump of the
 * store does not reveal them) and signs page tokens and document URLs, identically in every API
 * process. `NORDPROP_API_MASTER_KEY` (base64, 32 bytes) in production; on a development machine a
 * key file in the data folder, created on first use with mode 0600.
 */
export function loadMasterKey(config: Config): Buffer {
  if (config.api.masterKey) return decodeKey(config.api.masterKey, 'NORDPROP_API_MASTER_KEY');
  const file = path.join(config.dataDir, 'api-master.key');
  mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx': only the first process creates it; the others read what it wrote.
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return decodeKey(readFileSync(file, 'utf8').trim(), file);
}

function decodeKey(text: string, origin: string): Buffer {
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error(`${origin} must hold 32 bytes in base64 (got ${key.length} bytes)`);
  return key;
}

/** One independent key per purpose, so a page-token signature can never pass as a URL signature. */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return createHmac('sha256', masterKey).update(`nordprop-api:${purpose}`).digest();
}
