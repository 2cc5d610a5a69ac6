/**
 * The input file itself is unusable (truncated zip, wrong header, wrong encoding, malformed
 * XML/JSON/CSV, not a database): the run fails with this message and is not retried.
 *
 * Temporal types an activity's failure by the thrown error's constructor name (then its
 * `name`), and the ingest workflow lists 'InputFormatError' as non-retryable: so bad input must
 * be thrown as this class itself, never as a subclass (whose constructor name would differ).
 */
export class InputFormatError extends Error {
  override name = 'InputFormatError';
  /**
   * The error the reader failed with when this one translates or replaces it (saxes', zlib's,
   * the decoder's on a damaged zip entry), for debugging. Deliberately not `cause`: Temporal
   * sends the cause chain along, and the ingest workflow reports the innermost cause's message,
   * which would be the library's bare message, or the very one a corrupt entry replaces.
   */
  readonly original?: unknown;

  constructor(message: string, options?: ErrorOptions & { original?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.original !== undefined) this.original = options.original;
  }
}

/**
 * Checks the bytes a stream was read from, read to their end: for a zip entry, drains what is
 * left of the entry and returns the corrupt-entry error when its CRC-32 or size is wrong, null
 * when the entry is intact (or cannot be judged).
 */
export type SourceCheck = () => Promise<InputFormatError | null>;

const sourceChecks = new WeakMap<object, SourceCheck>();

/** Registers the check of `input`'s source (openInput and the bundle reader do, for zip entries). */
export function attachSourceCheck(input: object, check: SourceCheck): void {
  sourceChecks.set(input, check);
}

/**
 * Marks `derived` (decoded text, decompressed bytes, a replayed stream) as read from `from`:
 * a failure reading `derived` checks `from`'s source too. Returns `derived`.
 */
export function readFrom<T extends object>(derived: T, from: unknown): T {
  const check = typeof from === 'object' && from !== null ? sourceChecks.get(from) : undefined;
  if (check) sourceChecks.set(derived, check);
  return derived;
}

/** Where a reader was when its input failed it. */
export interface ReadPlace {
  /** The file, as the message names it. */
  label: string;
  /** What the reader read (the stream or text iterable it was given), to check a zip entry it comes from. */
  input?: unknown;
  /** Where in the file, as a phrase: `at line 12, column 4`, `after 5120 compressed bytes`, `after feature 3`. */
  at?: string;
  /** What is wrong, after the label: default `cannot be read`. */
  problem?: string;
  /**
   * false when the error did not come from parsing the input (an adapter's callback threw):
   * it is then only replaced by a corrupt-entry error, never turned into an InputFormatError.
   */
  translate?: boolean;
}

/** An operating-system error (EIO, ENOSPC, EMFILE, …): not the file's fault, worth retrying. */
function isSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/**
 * The error a reader throws for a parse failure, without looking at the input's source: an
 * InputFormatError or a system error as it is, anything else (saxes', csv-parse's, stream-json's,
 * zlib's, tar-stream's, SQLite's error) as an InputFormatError naming the file, the position
 * and the library's message, the error itself as `original`.
 */
export function inputFormatError(error: unknown, place: ReadPlace): Error {
  if (error instanceof InputFormatError || isSystemError(error)) return error as Error;
  if (place.translate === false) return error instanceof Error ? error : new Error(String(error));
  const message = (error instanceof Error ? error.message : String(error)) || 'unknown error';
  const at = place.at ? ` ${place.at}` : '';
  return new InputFormatError(`${place.label} ${place.problem ?? 'cannot be read'}${at}: ${message}`, { original: error });
}

/**
 * The one translation every reader applies where its input fails it (its boundary):
 * 1. when the input was read from a zip entry, the rest of the entry is checked, and a corrupt
 *    entry is the error reported (the reader's error as `original`): garbage from a damaged
 *    entry makes decoders and parsers fail before inflate or the CRC-32 can, misleadingly;
 * 2. otherwise the error as inputFormatError() makes it.
 * The check costs nothing on the happy path: it runs only after a failure.
 */
export async function readFailure(error: unknown, place: ReadPlace): Promise<Error> {
  const check = typeof place.input === 'object' && place.input !== null ? sourceChecks.get(place.input) : undefined;
  if (check) {
    let corrupt: InputFormatError | null = null;
    try {
      corrupt = await check();
    } catch {
      corrupt = null; // the check could not tell; report the original error
    }
    if (corrupt) {
      if (corrupt !== error) corrupt = new InputFormatError(corrupt.message, { original: error });
      return corrupt;
    }
  }
  return inputFormatError(error, place);
}
