/**
 * The items of the last `size` indices built by a pure function of the index: the register
 * writers of one sample stream the same parcels (or Swedish properties) at the same time, each
 * at its own pace, and this lets them build each one once instead of once per file.
 *
 * Every pass over the items is a cursor. A writer whose cursor runs more than half a window
 * ahead of the slowest waits (`pacedReadable`, `waitIfAhead`) until the others catch up, so
 * the window keeps serving all of them. A writer that still falls behind simply rebuilds (same
 * input, same item): the window bounds memory without ever changing what is written.
 */
import { Readable } from 'node:stream';

export interface WindowCursor {
  position: number;
}

export class IndexWindow<T> {
  private readonly items: (T | undefined)[];
  private readonly indices: Float64Array;
  private readonly cursors = new Set<WindowCursor>();
  /** The cursor that moved last (how a paced stream learns which cursor is its own). */
  lastMoved: WindowCursor | undefined;
  /** Items built (hits are not counted): equals the item count when no writer fell behind. */
  built = 0;
  /** The highest index built so far: the generator's progress. */
  highest = -1;

  constructor(
    private readonly build: (index: number) => T,
    readonly size = DEFAULT_WINDOW,
  ) {
    this.items = new Array<T | undefined>(size);
    this.indices = new Float64Array(size).fill(-1);
  }

  /** Every item from 0 to count - 1, as one cursor. */
  *pass(count: number): Generator<T> {
    const cursor: WindowCursor = { position: 0 };
    this.cursors.add(cursor);
    try {
      for (let index = 0; index < count; index++) {
        cursor.position = index;
        this.lastMoved = cursor;
        yield this.get(index);
      }
    } finally {
      this.cursors.delete(cursor);
    }
  }

  get(index: number): T {
    const slot = index % this.size;
    if (this.indices[slot] === index) return this.items[slot] as T;
    const item = this.build(index);
    this.items[slot] = item;
    this.indices[slot] = index;
    this.built += 1;
    if (index > this.highest) this.highest = index;
    return item;
  }

  /** True while `cursor` is so far ahead of the slowest pass that its items would leave the window. */
  isAhead(cursor: WindowCursor): boolean {
    if (!this.cursors.has(cursor)) return false;
    let slowest = Infinity;
    for (const other of this.cursors) if (other.position < slowest) slowest = other.position;
    return cursor.position - slowest > this.size / 2;
  }
}

/** Parcels with addresses, buildings and companies are a few kB each: 8192 of them stay under 100 MB. */
export const DEFAULT_WINDOW = 8192;

/** Windows of the generation in progress (at most one per country). */
const active = new Set<IndexWindow<unknown>>();

export function activateWindow(window: IndexWindow<unknown>): void {
  active.add(window);
}

export function deactivateWindow(window: IndexWindow<unknown>): void {
  active.delete(window);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits while `cursor` runs ahead in its window; a no-op outside a generation. */
export async function waitIfAhead(cursor: WindowCursor | undefined): Promise<void> {
  if (!cursor) return;
  for (const window of active) while (window.isAhead(cursor)) await nextTurn();
}

/** The cursor that moved during `step`, if any. */
export function cursorMovedBy<R>(step: () => R): { result: R; cursor: WindowCursor | undefined } {
  for (const window of active) window.lastMoved = undefined;
  const result = step();
  for (const window of active) if (window.lastMoved) return { result, cursor: window.lastMoved };
  return { result, cursor: undefined };
}

/**
 * `Readable.from(pieces)`, holding back while the pass these pieces come from runs ahead of the
 * other writers of the generation (plain `Readable.from` outside one).
 */
export function pacedReadable<P extends string | Buffer>(pieces: Iterable<P>, options?: { objectMode?: boolean; highWaterMark?: number }): Readable {
  if (active.size === 0) return Readable.from(nonEmpty(pieces), options);
  return Readable.from(paced(pieces), options);
}

/** Empty pieces are ticks (a chance to pace), never data. */
function* nonEmpty<P extends string | Buffer>(pieces: Iterable<P>): Generator<P> {
  for (const piece of pieces) if (piece.length > 0) yield piece;
}

async function* paced<P extends string | Buffer>(pieces: Iterable<P>): AsyncGenerator<P> {
  const iterator = pieces[Symbol.iterator]();
  let own: WindowCursor | undefined;
  try {
    for (;;) {
      const { result, cursor } = cursorMovedBy(() => iterator.next());
      own ??= cursor;
      if (result.done) return;
      if (result.value.length > 0) yield result.value;
      await waitIfAhead(own);
    }
  } finally {
    iterator.return?.();
  }
}
