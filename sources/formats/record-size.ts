import { InputFormatError } from './input-error.js';

/**
 * The longest record (bytes, or characters of decoded text) a line or CSV reader holds before
 * it refuses the file. No register's record comes near it, but a file without line breaks where
 * the reader expects them (lines that end in CR alone, a GML or JSON file given to a CSV source,
 * a quote never closed) is one record as long as the file: held whole, it grew without bound
 * and ended in "Invalid string length" or out of memory.
 */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** The error for a record that runs past MAX_RECORD_BYTES at `line` (1-based) of the file `label`. */
export function recordTooLong(label: string, line: number): InputFormatError {
  return new InputFormatError(
    `${label}: a record runs on past ${MAX_RECORD_BYTES / 1024 / 1024} MiB without ending, at line ${line}: ` +
      'not a file of lines as this source reads them (lines ending in CR alone, another format, or a quote never closed)',
  );
}
