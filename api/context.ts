import type pg from 'pg';
import type { Config } from '../lib/config.js';
import { COUNTRIES } from '../lib/domain/country.js';
import { TokenResolver } from './auth/tokens.js';
import { CallBatcher } from './limits/call-counter.js';
import { CallsAhead } from './limits/calls-ahead.js';
import { RateWindowSweeper } from './limits/window-sweep.js';
import { deriveKey } from '../lib/secrets/master-key.js';

/** What every route needs: the store, the settings and the keys derived from the master key. */
export interface ApiContext {
  db: pg.Pool;
  /**
   * The store again, for the hot point lookups (GET /coordinates and GET /properties/{id}): sessions
   * that always run a prepared statement's generic plan (lib/db.ts, 'api-lookup').
   */
  lookups: pg.Pool;
  config: Config;
  baseUrl: string;
  tokens: TokenResolver;
  /** Counts each request in the store (rate window and day), many requests per statement. */
  calls: CallBatcher;
  /** Answers reads of clients far from their limits before their calls are counted, and counts them in groups. */
  ahead: CallsAhead;
  /** Deletes old rate windows now and then, told of every counted call (however it was counted). */
  windowSweep: RateWindowSweeper;
  keys: { pageToken: Buffer; documentUrl: Buffer; webhookSecret: Buffer };
  /** Requests per window for callers without a valid token (keyed by IP address). */
  anonymousBurst: { limit: number; windowS: number };
  /** Countries whose cadastre register this service serves. */
  countries: readonly string[];
}

export function createContext(db: pg.Pool, lookups: pg.Pool, config: Config, masterKey: Buffer, baseUrl = config.api.baseUrl): ApiContext {
  const windowSweep = new RateWindowSweeper(db);
  const calls = new CallBatcher(db, windowSweep);
  return {
    db,
    lookups,
    config,
    baseUrl,
    tokens: new TokenResolver(db),
    calls,
    ahead: new CallsAhead(calls),
    windowSweep,
    keys: {
      pageToken: deriveKey(masterKey, 'page-token'),
      documentUrl: deriveKey(masterKey, 'document-url'),
      webhookSecret: deriveKey(masterKey, 'webhook-secret'),
    },
    anonymousBurst: { limit: config.api.anonymousBurst, windowS: 1 },
    countries: COUNTRIES,
  };
}
