import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A register input as it crosses the Temporal boundary: an http(s) URL, or a local file as a
 * `file:` URL. A URL says unambiguously which of the two it names, and a path with spaces, `#`,
 * `%` or non-ASCII letters survives the trip percent-encoded. The worker decodes it back to a
 * path once, with `decodeInput`, where the download activity resolves its input.
 */

export const isHttpUrl = (input: string): boolean => /^https?:\/\//i.test(input);

export const isFileUrl = (input: string): boolean => /^file:/i.test(input);

/** The `file:` URL of a local file (a relative path is taken from the working directory). */
export function fileInputUrl(file: string): string {
  return pathToFileURL(path.resolve(file)).href;
}

/**
 * The path a `file:` URL names; any other input (an http(s) URL, or a path the worker was
 * configured with) is returned as it is. Throws TypeError for a malformed `file:` URL.
 */
export function decodeInput(input: string): string {
  return isFileUrl(input) ? fileURLToPath(input) : input;
}
