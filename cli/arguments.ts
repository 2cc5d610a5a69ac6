import { statSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { decodeInput, fileInputUrl, isFileUrl, isHttpUrl } from '../lib/register-input.js';
import { COUNTRIES } from '../lib/domain/country.js';
import { SOURCES } from '../sources/registry.js';
import { DATASET_IDS, deriveLedgerId } from '../derive/registry.js';
import { ALL_SCOPES, parseScopes } from '../api/auth/scopes.js';

/**
 * The argument parsers of every `nordprop` verb: commander runs them while it parses the command
 * line, so a bad value stops the command before it connects to anything, with commander's message
 * naming the option (`error: option '--limit <n>' argument 'abc' is invalid. …`) and exit code 2
 * (cli/main.ts). Each parser returns the value the command uses (a number, an absolute path, …).
 */

export type ArgumentParser<T> = (value: string, previous?: T) => T;

const invalid = (reason: string) => new InvalidArgumentError(reason);

/** A repeatable option (`--source a b`, `--source a --source b`): each value parsed, in order, duplicates dropped. */
export function many<T>(parse: ArgumentParser<T>): ArgumentParser<T[]> {
  return (value, previous) => {
    const parsed = parse(value);
    const list = previous ?? [];
    return list.includes(parsed) ? list : [...list, parsed];
  };
}

/** A whole number in [min, max], written in decimal digits (no `1e3`, `0x10`, `''` or `2.0`). */
export function wholeNumber(range: { min?: number; max?: number } = {}): ArgumentParser<number> {
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = range;
  const expected = max === Number.MAX_SAFE_INTEGER ? `a whole number ≥ ${min}` : `a whole number from ${min} to ${max}`;
  return (value) => {
    const number = /^\s*\+?\d+\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(number) || number < min || number > max) throw invalid(`expected ${expected}`);
    return number;
  };
}

const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A decimal number in [min, max] (exclusive of min with `above`). */
export function decimal(range: { min?: number; max?: number; above?: number; what?: string } = {}): ArgumentParser<number> {
  const { min = -Infinity, max = Infinity, above } = range;
  const bounds = above !== undefined ? `> ${above}` : Number.isFinite(min) && Number.isFinite(max) ? `from ${min} to ${max}` : Number.isFinite(min) ? `≥ ${min}` : '';
  const expected = range.what ?? `a number ${bounds}`.trim();
  return (value) => {
    const number = DECIMAL.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(number) || number < min || number > max || (above !== undefined && number <= above)) throw invalid(`expected ${expected}`);
    return number;
  };
}

export const latitude = decimal({ min: -90, max: 90, what: 'a latitude in WGS84 degrees, from -90 to 90' });
export const longitude = decimal({ min: -180, max: 180, what: 'a longitude in WGS84 degrees, from -180 to 180' });
export const tcpPort = wholeNumber({ min: 0, max: 65535 });
export const positiveWholeNumber = wholeNumber({ min: 1 });

/** A calendar day, `YYYY-MM-DD` (2026-02-30 is refused). */
export const calendarDate: ArgumentParser<string> = (value) => {
  const date = new Date(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw invalid('expected a calendar date as YYYY-MM-DD');
  }
  return value;
};

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** A duration in milliseconds: `90s`, `10m`, `1h`, `500ms`, or a bare number of seconds. */
export const duration: ArgumentParser<number> = (value) => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$/.exec(value);
  if (!match) throw invalid('expected a duration such as 90s, 10m or 1h (a bare number is seconds)');
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 's']);
};

/** A SHA-256 checksum, 64 hexadecimal digits; returned in lower case. */
export const sha256Hex: ArgumentParser<string> = (value) => {
  if (!/^[0-9a-f]{64}$/i.test(value)) throw invalid(`expected 64 hexadecimal digits (a SHA-256 checksum), got ${value.length} characters`);
  return value.toLowerCase();
};

/** An id such as a subscription's or an event's, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`; returned in lower case. */
export const uuid: ArgumentParser<string> = (value) => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw invalid('expected a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)');
  return value.toLowerCase();
};

function oneOf(what: string, known: readonly string[]): ArgumentParser<string> {
  return (value) => {
    if (!known.includes(value)) throw invalid(`unknown ${what} "${value}"; known ${what}s: ${known.join(', ')}`);
    return value;
  };
}

/** A source id of sources/registry.ts. */
export const sourceId = oneOf('source', SOURCES.map((source) => source.id));
/** A derived dataset id of derive/registry.ts. */
export const datasetId = oneOf('dataset', DATASET_IDS);

/** What the run ledger names a source by: a source id, or a derived dataset's ledger id (`derive-no-tenants`). */
export const ledgerSourceId = oneOf('source', [
  ...SOURCES.map((source) => source.id),
  ...DATASET_IDS.flatMap((id) => COUNTRIES.map((country) => deriveLedgerId(id, country))),
]);

/** Outcomes of a run (succeeded, partial, failed, running) and of a source in it (published, unchanged, failed, running). */
export const RUN_OUTCOMES = ['succeeded', 'partial', 'failed', 'running'] as const;
export const SOURCE_OUTCOMES = ['published', 'unchanged', 'failed', 'running'] as const;
export const outcome = oneOf('outcome', [...new Set([...RUN_OUTCOMES, ...SOURCE_OUTCOMES])]);

/** A run id as the ledger holds it (`r20251126-020000-1a2b3c`): letters, digits, `.`, `_` and `-`. */
export const runId: ArgumentParser<string> = (value) => {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(value)) throw invalid('expected a run id such as r20251126-020000-1a2b3c (see: nordprop runs)');
  return value;
};

/** API scopes, space- or comma-delimited, all known. */
export const scopes: ArgumentParser<string[]> = (value) => {
  const parsed = parseScopes(value);
  if (parsed.unknown.length) throw invalid(`unknown scope${parsed.unknown.length > 1 ? 's' : ''} ${parsed.unknown.map((s) => `"${s}"`).join(', ')}; known scopes: ${ALL_SCOPES.join(' ')}`);
  if (!parsed.scopes.length) throw invalid(`no scope given; known scopes: ${ALL_SCOPES.join(' ')}`);
  return parsed.scopes;
};

const kind = (file: string) => {
  try {
    const stats = statSync(file);
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'folder' : 'other';
  } catch {
    return 'missing';
  }
};

/**
 * A register extract to read: an http(s) URL (passed on as given), or a local file, as a path
 * relative to the working directory or a `file:` URL; a file must exist and is returned as its
 * `file:` URL (lib/register-input.ts), which the worker decodes back into the same path, so
 * spaces, `#`, `%` and non-ASCII letters survive.
 */
export const inputPathOrUrl: ArgumentParser<string> = (value) => {
  if (isHttpUrl(value)) {
    if (!URL.canParse(value)) throw invalid('not a valid http(s) URL');
    return value;
  }
  let file: string;
  if (isFileUrl(value)) {
    try {
      file = decodeInput(value);
    } catch (error) {
      throw invalid(`not a valid file: URL (${(error as Error).message})`);
    }
  } else if (/^[a-z][a-z0-9+.-]+:\/\//i.test(value)) {
    throw invalid('expected a file path or an http(s) URL');
  } else {
    file = path.resolve(value);
  }
  const found = kind(file);
  if (found !== 'file') throw invalid(found === 'missing' ? `no file ${file}` : `${file} is a ${found}, not a file`);
  return fileInputUrl(file);
};

/** An existing folder; returned as its absolute path. */
export const existingFolder: ArgumentParser<string> = (value) => {
  const folder = path.resolve(value);
  const found = kind(folder);
  if (found !== 'folder') throw invalid(found === 'missing' ? `no folder ${folder}` : `${folder} is not a folder`);
  return folder;
};

/** A file to write (`-` for none): its folder must exist. Returned as its absolute path (or `-`). */
export const outputFile: ArgumentParser<string> = (value) => {
  if (value === '-') return value;
  const file = path.resolve(value);
  if (kind(file) === 'folder') throw invalid(`${file} is a folder; name a file`);
  if (kind(path.dirname(file)) !== 'folder') throw invalid(`no folder ${path.dirname(file)} to write it in`);
  return file;
};

/** A folder to write into: created if missing, so only a non-folder in the way is refused. */
export const outputFolder: ArgumentParser<string> = (value) => {
  const folder = path.resolve(value);
  const found = kind(folder);
  if (found !== 'folder' && found !== 'missing') throw invalid(`${folder} is a ${found}, not a folder`);
  return folder;
};
