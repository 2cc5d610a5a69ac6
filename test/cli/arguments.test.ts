import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { SOURCES } from '../../sources/registry.js';

const run = promisify(execFile);
const README = path.join(PROJECT_ROOT, 'README.md');

/**
 * The built CLI with nothing behind it: no database of that name and no Temporal server on the
 * port. A command line that is refused must be refused before anything is contacted, so each
 * case ends with the argument's message and exit code 2, never with a connection error.
 */
async function nordprop(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(PROJECT_ROOT, 'bin/nordprop.js'), ...args], {
      env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/nordprop_no_such_database', TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const cases: [string[], RegExp][] = [
  [['backfill', '--source', 'bogus', '--input', README], new RegExp(`option '--source <id>' argument 'bogus' is invalid\\. unknown source "bogus"; known sources: ${SOURCES.map((source) => source.id).join(', ')}\n`)],
  [['backfill', '--source', 'no-address', '--input', 'no such dir/ø.zip'], /option '--input <pathOrUrl>' argument 'no such dir\/ø.zip' is invalid\. no file \/.*\/no such dir\/ø\.zip\n/],
  [['backfill', '--source', 'no-address', '--input', 'ftp://example.org/a.zip'], /option '--input <pathOrUrl>' argument 'ftp:\/\/example\.org\/a\.zip' is invalid\. expected a file path or an http\(s\) URL/],
  [['backfill', '--source', 'no-address', '--input', README, '--sha256', 'abc'], /option '--sha256 <hex>' argument 'abc' is invalid\. expected 64 hexadecimal digits/],
  [['backfill', '--input', README], /required option '--source <id>' not specified/],
  [['backfill', '--source', 'no-address', '--input', README, '--wait', '--reconnect-timeout', 'soon'], /option '--reconnect-timeout <duration>' argument 'soon' is invalid\. expected a duration such as 90s, 10m or 1h/],
  [['refresh', '--source', 'no-address', 'bogus'], /option '--source <id\.\.\.>' argument 'bogus' is invalid\. unknown source "bogus"/],
  [['refresh', '--country', 'DK'], /option '--country <country>' argument 'DK' is invalid\. Allowed choices are NO, SE/],
  [['refresh', '--country', 'SE', '--source', 'se-area', 'no-address'], /--source no-address: not a source of --country SE/],
  [['derive', '--dataset', 'rents'], /option '--dataset <id\.\.\.>' argument 'rents' is invalid\. unknown dataset "rents"; known datasets: tenants, utilization, comparables, valuations/],
  [['derive', '--as-of', '2026-02-30'], /option '--as-of <date>' argument '2026-02-30' is invalid\. expected a calendar date as YYYY-MM-DD/],
  [['derive', '--concurrency', '0'], /option '--concurrency <n>' argument '0' is invalid\. expected a whole number from 1 to 64/],
  [['refresh', '--derive-concurrency', '65'], /option '--derive-concurrency <n>' argument '65' is invalid\. expected a whole number from 1 to 64/],
  [['refresh', '--source', 'no-address', '--derive-concurrency', '4'], /--derive-concurrency: a refresh of named sources \(--source\) computes no derived datasets; use nordprop derive --concurrency/],
  [['schedule', 'create', '--derive-concurrency', 'two'], /option '--derive-concurrency <n>' argument 'two' is invalid\. expected a whole number from 1 to 64/],
  [['evaluate-valuations', '--as-of', '20261101'], /option '--as-of <date>' argument '20261101' is invalid\. expected a calendar date as YYYY-MM-DD/],
  [['evaluate-tenants', '--sample', 'no/such/sample'], /option '--sample <dir>' argument 'no\/such\/sample' is invalid\. no folder \//],
  [['evaluate-tenants', '--sample', PROJECT_ROOT, '--out', 'no/such/folder/report.md'], /option '--out <file>' argument 'no\/such\/folder\/report\.md' is invalid\. no folder \//],
  [['runs', '--limit', 'abc'], /option '--limit <n>' argument 'abc' is invalid\. expected a whole number from 1 to 10000/],
  [['runs', 'show', 'r20260101-000000-abcdef', '--rejects', '-1'], /option '--rejects <n>' argument '-1' is invalid\. expected a whole number from 0 to 100000/],
  [['schedule', 'frobnicate'], /argument 'action'\. Allowed choices are create, describe, pause, unpause, trigger/],
  [['sample', '--out', 'x', '--parcels', '1.5'], /option '--parcels <n>' argument '1\.5' is invalid\. expected a whole number ≥ 1/],
  [['lookup', '--lat', 'abc', '--lon', '8'], /option '--lat <lat>' argument 'abc' is invalid\. expected a latitude in WGS84 degrees, from -90 to 90/],
  [['lookup', '--lat', '58', '--lon', '200'], /option '--lon <lon>' argument '200' is invalid\. expected a longitude in WGS84 degrees, from -180 to 180/],
  [['api', '--port', 'http'], /option '--port <port>' argument 'http' is invalid\. expected a whole number from 0 to 65535/],
  [['clients', 'create', '--scopes', 'properties.read everything'], /option '--scopes <scopes>' argument 'properties\.read everything' is invalid\. unknown scope "everything"; known scopes: properties\.read/],
  [['clients', 'create', '--scopes', 'properties.read', '--tier', 'gold'], /option '--tier <tier>' argument 'gold' is invalid\. Allowed choices are sandbox, basic, standard, enterprise/],
  [['clients', 'create', '--scopes', 'properties.read', '--daily-limit', '0'], /option '--daily-limit <n>' argument '0' is invalid\. expected a whole number ≥ 1/],
  [['deliveries', '--subscription', '42'], /option '--subscription <id>' argument '42' is invalid\. expected a UUID/],
  [['deliveries', '--limit', '1e3'], /option '--limit <n>' argument '1e3' is invalid\. expected a whole number from 1 to 10000/],
  [['deliveries', 'show', '42'], /value '42' is invalid for argument 'eventId'\. expected a UUID/],
];

describe('nordprop checks every argument before it starts anything', () => {
  it.concurrent.each(cases)('nordprop %j: exit code 2 and a message naming the argument', async (args, message) => {
    const result = await nordprop(...args);
    expect(result.stderr).toMatch(message);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
  });
});
