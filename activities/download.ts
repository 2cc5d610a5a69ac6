import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Context } from '@temporalio/activity';
import { loadConfig } from '../lib/config.js';
import { getPool } from '../lib/db.js';
import { decodeInput, isHttpUrl } from '../lib/register-input.js';
import { ownWorkerTaskQueue } from '../lib/temporal/worker-task-queue.js';
import { getSource } from '../sources/registry.js';
import type { IncrementalFeed, SourceAdapter } from '../sources/source-adapter.js';
import { recordDuration } from './ledger.js';
import { recentArtifacts, recordIncrementFetched } from '../lib/run-ledger.js';
import { withProgressHeartbeat, type ProgressBeats } from './heartbeat.js';
import type { Artifact, IngestSourceInput, ProgressDetails } from './types.js';

/** Thrown for inputs that will not get better on retry (missing file, 404, checksum mismatch). */
export class DownloadError extends Error {
  override name = 'DownloadError';
}

/** A local input (inbox, input folder, path) this worker does not see; another worker may (workflows/ingest-source.ts asks them). */
export class InputNotOnWorkerError extends DownloadError {
  override name = 'InputNotOnWorkerError';
}

/** The queue of this worker's own, on which the activities reading what it downloaded run. */
const thisWorkerQueue = () => ownWorkerTaskQueue(Context.current().info.taskQueue, loadConfig().dataDir);

/**
 * Where a source reads from: the explicit input (an http(s) URL, or a local file as a `file:`
 * URL, decoded here and only here into its path), the configured input folder, or the
 * register's URL. The ledger and the later activities see the path.
 */
export function resolveInput(source: SourceAdapter, explicit?: string): string {
  if (explicit) return decodeInput(explicit);
  const { inputDir } = loadConfig();
  return inputDir ? path.join(inputDir, source.inputFileName) : source.defaultInput;
}

interface PreviousArtifact {
  input_sha256: string | null;
  etag: string | null;
  last_modified: string | null;
  artifact_path: string | null;
}

/**
 * What live holds: the artifact of the source's last successful run that replaced the same parts
 * of its live data, whatever its input. A file is unchanged only against that: reloading file A
 * after a run of file B must publish A again. Its ETag and Last-Modified are asked with only when
 * that run read this same URL.
 */
async function previousArtifact(source: SourceAdapter, input: string): Promise<PreviousArtifact | undefined> {
  const parts = new Set(source.snapshotParts?.(input) ?? ['all']);
  const replacesSameParts = (other: string | null) => other !== null && (source.snapshotParts?.(other) ?? ['all']).some((part) => parts.has(part));
  const last = (await recentArtifacts(getPool(), source.id)).find((row) => replacesSameParts(row.input));
  if (!last) return undefined;
  const sameInput = last.input === input;
  return { input_sha256: last.input_sha256, etag: sameInput ? last.etag : null, last_modified: sameInput ? last.last_modified : null, artifact_path: sameInput ? last.artifact_path : null };
}

async function sha256File(filePath: string, onBytes: (bytes: number) => void): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(filePath, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
    onBytes(bytes);
  }
  return { sha256: hash.digest('hex'), bytes };
}

const urlFileName = (url: string) => path.basename(new URL(url).pathname) || 'download';

interface HttpResult {
  notModified: boolean;
  path: string;
  etag: string | null;
  lastModified: string | null;
}

/**
 * GET with If-None-Match / If-Modified-Since, written to a `.part` file. A retried attempt
 * resumes the `.part` with a Range request (If-Range guards against a changed file), from the
 * byte count its last heartbeat reported.
 */
async function fetchUrl(url: string, source: SourceAdapter, runId: string, previous: PreviousArtifact | undefined, force: boolean, beat: (p: ProgressDetails) => void): Promise<HttpResult> {
  const sourceId = source.id;
  const dir = path.join(loadConfig().dataDir, 'artifacts', sourceId);
  await mkdir(dir, { recursive: true });
  // One `.part` per run: two runs downloading on one worker at once must not write one file.
  const partPath = path.join(dir, `${runId}.${urlFileName(url)}.part`);
  const resumeFrom = (Context.current().info.heartbeatDetails as ProgressDetails | undefined)?.bytes ?? 0;
  const partSize = await stat(partPath).then((s) => s.size, () => 0);
  const headers: Record<string, string> = { ...source.downloadHeaders?.(url) };
  if (!force && previous?.etag) headers['if-none-match'] = previous.etag;
  if (!force && previous?.last_modified) headers['if-modified-since'] = previous.last_modified;
  let offset = 0;
  if (resumeFrom > 0 && partSize >= resumeFrom) {
    offset = resumeFrom;
    headers.range = `bytes=${offset}-`;
  }
  const response = await fetch(url, { headers, signal: Context.current().cancellationSignal });
  if (response.status === 304) return { notModified: true, path: partPath, etag: previous?.etag ?? null, lastModified: previous?.last_modified ?? null };
  if (response.status === 404 || response.status === 410) throw new DownloadError(`${url} answered ${response.status}`);
  if (!response.ok || !response.body) throw new Error(`${url} answered ${response.status} ${response.statusText}`);
  if (response.status !== 206) offset = 0; // the server ignored the range: start over
  const length = Number(response.headers.get('content-length') ?? NaN);
  const total = Number.isFinite(length) ? offset + length : null;
  let bytes = offset;
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    beat({ phase: 'download', bytes, totalBytes: total, rows: 0, rejected: 0 });
  });
  await pipeline(body, createWriteStream(partPath, { flags: offset ? 'r+' : 'w', start: offset }));
  if (total !== null && bytes !== total) throw new Error(`truncated download of ${url}: got ${bytes} of ${total} bytes`);
  return { notModified: false, path: partPath, etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') };
}

/**
 * The download of an incremental source's run on its change feed (see IncrementalFeed): the
 * changes since the stored position, into one file the stage reads. No change: `unchanged`.
 * The position reached goes into the ledger, where the publish picks it up.
 */
async function downloadChanges(source: SourceAdapter, feed: IncrementalFeed, request: IngestSourceInput, input: string, started: number, beat: ProgressBeats['beat']): Promise<Artifact> {
  const dir = path.join(loadConfig().dataDir, 'artifacts', source.id);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${request.runId}.changes.jsonl`);
  const fetched = await feed.fetchChanges(input, {
    db: getPool(),
    file,
    signal: Context.current().cancellationSignal,
    onProgress: (changes) => beat({ phase: 'download', bytes: 0, totalBytes: null, rows: changes, rejected: 0 }),
  });
  await recordIncrementFetched(getPool(), request.runId, source.id, fetched);
  if (fetched.changes === 0) {
    await rm(file, { force: true });
    await recordDuration(request.runId, source.id, 'download', performance.now() - started, { input });
    return { unchanged: true, input, artifactPath: '', sha256: '', bytes: 0 };
  }
  const { sha256, bytes } = await sha256File(file, () => undefined);
  await recordDuration(request.runId, source.id, 'download', performance.now() - started, { input, artifact_path: file, input_sha256: sha256, input_bytes: bytes });
  return { unchanged: false, input, artifactPath: file, sha256, bytes, workerTaskQueue: thisWorkerQueue() };
}

export async function downloadArtifact(request: IngestSourceInput): Promise<Artifact> {
  return withProgressHeartbeat(Context.current().info.heartbeatDetails as ProgressDetails | undefined, (beat) => download(request, beat));
}

async function download(request: IngestSourceInput, beat: ProgressBeats['beat']): Promise<Artifact> {
  const started = performance.now();
  const source = getSource(request.sourceId);
  const input = resolveInput(source, request.input);
  if (source.increment?.accepts(input)) return downloadChanges(source, source.increment, request, input, started, beat);
  const previous = await previousArtifact(source, input);
  let artifactPath: string;
  let etag: string | null = null;
  let lastModified: string | null = null;

  if (isHttpUrl(input)) {
    const fetched = await fetchUrl(input, source, request.runId, previous, request.force, beat);
    if (fetched.notModified && previous?.artifact_path) {
      await recordDuration(request.runId, source.id, 'download', performance.now() - started, {
        input, artifact_path: previous.artifact_path, input_sha256: previous.input_sha256, etag: fetched.etag, last_modified: fetched.lastModified,
      });
      return { unchanged: true, input, artifactPath: previous.artifact_path, sha256: previous.input_sha256 ?? '', bytes: 0 };
    }
    artifactPath = fetched.path;
    etag = fetched.etag;
    lastModified = fetched.lastModified;
  } else {
    artifactPath = path.resolve(input);
    const exists = await stat(artifactPath).then((s) => s.isFile(), () => false);
    if (!exists) throw new InputNotOnWorkerError(`input file ${artifactPath} does not exist`);
  }

  const size = (await stat(artifactPath)).size;
  const { sha256, bytes } = await sha256File(artifactPath, (read) => beat({ phase: 'download', bytes: read, totalBytes: size, rows: 0, rejected: 0 }));
  if (request.expectedSha256 && request.expectedSha256.toLowerCase() !== sha256) {
    throw new DownloadError(`checksum mismatch for ${input}: expected sha256 ${request.expectedSha256}, got ${sha256}`);
  }
  if (isHttpUrl(input)) {
    // Name the finished download by content so runs can refer to it after later downloads.
    const finalPath = path.join(path.dirname(artifactPath), `${sha256.slice(0, 16)}-${urlFileName(input)}`);
    await rename(artifactPath, finalPath);
    artifactPath = finalPath;
  }
  const unchanged = !request.force && previous?.input_sha256 === sha256;
  if (unchanged && isHttpUrl(input) && previous?.artifact_path && previous.artifact_path !== artifactPath) await rm(artifactPath, { force: true });
  await recordDuration(request.runId, source.id, 'download', performance.now() - started, {
    input, artifact_path: artifactPath, input_sha256: sha256, input_bytes: bytes, etag, last_modified: lastModified,
  });
  return { unchanged, input, artifactPath, sha256, bytes, workerTaskQueue: thisWorkerQueue() };
}
