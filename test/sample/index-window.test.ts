import { describe, expect, it } from 'vitest';
import { activateWindow, deactivateWindow, IndexWindow, pacedReadable } from '../../sample/index-window.js';

function counting(size: number) {
  const builds: number[] = [];
  const window = new IndexWindow((index) => {
    builds.push(index);
    return { index };
  }, size);
  return { window, builds };
}

describe('IndexWindow', () => {
  it('builds each index once for passes that stay within the window, and rebuilds for one that falls behind', () => {
    const { window, builds } = counting(8);
    const a = window.pass(20), b = window.pass(20);
    for (let i = 0; i < 20; i++) {
      expect(a.next().value).toEqual({ index: i });
      expect(b.next().value).toEqual({ index: i });
    }
    expect(builds).toEqual([...Array(20).keys()]);

    // A third pass far behind gets the same items, rebuilt.
    const late = [...window.pass(3)];
    expect(late).toEqual([{ index: 0 }, { index: 1 }, { index: 2 }]);
    expect(window.built).toBe(23);
  });

  it('calls a pass ahead when it runs more than half a window past the slowest, and forgets a pass that ended early', () => {
    const { window } = counting(8);
    const slow = window.pass(100), fast = window.pass(100);
    slow.next();
    for (let i = 0; i < 4; i++) fast.next();
    const fastCursor = window.lastMoved!;
    expect(window.isAhead(fastCursor)).toBe(false);
    fast.next();
    fast.next();
    expect(window.isAhead(fastCursor)).toBe(true);
    slow.return(undefined);
    expect(window.isAhead(fastCursor)).toBe(false);
  });

  it('holds a fast stream back until the slow one catches up, without changing what either writes', async () => {
    const { window, builds } = counting(16);
    activateWindow(window as IndexWindow<unknown>);
    try {
      const pieces = (gap: string) => (function* () {
        for (const item of window.pass(200)) yield `${item.index}${gap}`;
      })();
      const fast = pacedReadable(pieces(','), { highWaterMark: 1 });
      const slow = pacedReadable(pieces(';'), { highWaterMark: 1 });
      // The slow writer starts (its pass exists) and then stalls, as behind a slow disk.
      const slowChunks = slow[Symbol.asyncIterator]();
      const slowText: string[] = [String((await slowChunks.next()).value)];
      const fastText: string[] = [];
      const fastEnded = new Promise((resolve) => fast.on('end', resolve));
      fast.on('data', (chunk) => fastText.push(String(chunk)));
      // Only the fast stream is read: it stops about half a window (8) ahead of the stalled one.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(fastText.length).toBeGreaterThan(4);
      expect(fastText.length).toBeLessThan(16);
      for (let next = await slowChunks.next(); !next.done; next = await slowChunks.next()) slowText.push(String(next.value));
      await fastEnded;
      expect(fastText.join('')).toBe([...Array(200).keys()].map((i) => `${i},`).join(''));
      expect(slowText.join('')).toBe([...Array(200).keys()].map((i) => `${i};`).join(''));
      expect(builds).toHaveLength(200);
    } finally {
      deactivateWindow(window as IndexWindow<unknown>);
    }
  });

  it('drops empty pieces (ticks) outside a generation too', async () => {
    const text: string[] = [];
    for await (const chunk of pacedReadable(['a', '', 'b', ''])) text.push(String(chunk));
    expect(text).toEqual(['a', 'b']);
  });
});
