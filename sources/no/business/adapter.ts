import type { Readable } from 'node:stream';
import { inMember, isTarName, readBundle } from '../../formats/bundle.js';
import { InputFormatError } from '../../formats/input-error.js';
import { gunzipIfCompressed, peekBytes } from '../../formats/gzip-input.js';
import type { FetchChangesContext, FetchedChanges, ParseContext, ParsedRecord, SourceAdapter } from '../../source-adapter.js';
import { CHANGES_FILE, readBusinessChanges } from './changes.js';
import { readBusinessCsv } from './parse-csv.js';
import { fetchBusinessChanges, readFeedCursors } from './feed.js';
import { readBusinessJson } from './parse-json.js';
import { countLiveCompanies, publishBusinessChanges, publishBusinessSnapshot } from './publish.js';
import { BUSINESS_STAGING_COLUMNS } from './record.js';
import { wholeCountry } from '../../input-scope.js';

const API = 'https://data.brreg.no/enhetsregisteret/api';

/** The first byte that is not whitespace or a byte-order mark: `[` JSON array, `"` CSV header. */
function firstSignificant(head: Buffer): string | undefined {
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  return /\S/.exec(text)?.[0];
}

/** Files a bundle may hold: the downloads as Brønnøysund names them, or any JSON / CSV, gzipped or not. */
const DOWNLOAD_FILE = /\.(json|csv)(\.gz)?$/i;

/**
 * A full download, or a tar bundle of both (`enheter_alle.json.gz` + `underenheter_alle.json.gz`,
 * one artifact for a run that loads both kinds), or the changes file of a feed run.
 */
async function* parseBusiness(input: Readable, { fileName, scratchDir }: ParseContext): AsyncGenerator<ParsedRecord[]> {
  if (CHANGES_FILE.test(fileName)) {
    yield* readBusinessChanges(input, { label: fileName });
    return;
  }
  for await (const member of readBundle(input, fileName, { dataFile: DOWNLOAD_FILE, scratchDir })) {
    const records = parseDownload(member.stream, member.name);
    // In a bundle, positions run on across members and a reason names the member.
    yield* isTarName(fileName) ? inMember(member, records) : records;
  }
}

/** One download in JSON or CSV, gzipped or not: the format is recognised by content. */
async function* parseDownload(input: Readable, fileName: string): AsyncGenerator<ParsedRecord[]> {
  const { head, stream } = await peekBytes(await gunzipIfCompressed(input, fileName), 256);
  const first = firstSignificant(head);
  if (first === '[') yield* readBusinessJson(stream, { label: fileName });
  else if (first === '"' || (first !== undefined && /\p{L}/u.test(first))) yield* readBusinessCsv(stream, { label: fileName });
  else if (first === '{') {
    throw new InputFormatError(`${fileName} is a JSON object, not the array of a full Enhetsregisteret download (an API page rather than enheter/lastned?)`);
  } else throw new InputFormatError(`${fileName} is ${first === undefined ? 'empty' : 'neither a JSON array nor a CSV of Enhetsregisteret records'}`);
}

async function fetchChanges(input: string, context: FetchChangesContext): Promise<FetchedChanges> {
  const cursors = await readFeedCursors(context.db);
  const { ranges, items } = await fetchBusinessChanges({ feedBase: input, cursors, file: context.file, signal: context.signal, onItems: context.onProgress });
  return { changes: items, position: { ranges } };
}

/**
 * Brønnøysund Enhetsregisteret: main units (enheter) and sub-units (underenheter) into `company`
 * and `company_address`. Loaded once from a full download per kind (`enheter/lastned`,
 * `underenheter/lastned`, JSON or CSV), then kept current from the updates feed: the nightly
 * input is the feed, and each run fetches only what changed since the last publish.
 * See docs/sources/no-business.md.
 */
export const noBusiness: SourceAdapter = {
  id: 'no-business',
  country: 'NO',
  scopeOf: wholeCountry,
  title: 'Brønnøysund Enhetsregisteret (enheter, underenheter, updates feed)',
  docs: 'docs/sources/no-business.md',
  defaultInput: `${API}/oppdateringer`,
  // Both downloads in one tar (see parseBusiness); a single download loads as it is.
  inputFileName: 'enhetsregisteret.tar',
  downloadHeaders: (url): Record<string, string> => {
    const kind = /\/underenheter\/lastned\/?$/.test(url) ? 'underenhet' : /\/enheter\/lastned\/?$/.test(url) ? 'enhet' : null;
    // Brønnøysund answers 406 to a plain or unversioned Accept on its bulk downloads.
    return kind ? { accept: `application/vnd.brreg.enhetsregisteret.${kind}.v2+gzip;charset=UTF-8` } : {};
  },
  zipEntry: /\.(json|csv|jsonl)(\.gz)?$/i,
  stagingColumns: BUSINESS_STAGING_COLUMNS,
  // A full download has every unit once (update_id 0); a feed run may hold several changes of one unit.
  keyColumns: ['org_id', 'update_id'],
  // A kind's download replaces that kind; the feed and a bundle of both touch both.
  snapshotParts: (input) => {
    if (/\/underenheter\/lastned\/?$/.test(input)) return ['underenheter'];
    if (/\/enheter\/lastned\/?$/.test(input)) return ['enheter'];
    return ['enheter', 'underenheter'];
  },
  parse: parseBusiness,
  countLive: countLiveCompanies,
  publish: (context) => publishBusinessSnapshot(context),
  increment: {
    accepts: (input) => /^https?:\/\/.+\/oppdateringer\/?$/i.test(input),
    fetchChanges,
    publishChanges: publishBusinessChanges,
  },
};
