/**
 * The coordinate lists of GML 3.2 (`gml:posList`, `gml:pos`): whitespace-separated numbers,
 * `srsDimension` per position, read into flat x,y arrays with a fast path for plain decimals.
 */

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * Single pass over plain decimals (`-262517.36`), allocating nothing per token. An integer
 * mantissa of at most 15 digits divided by an exact power of ten is one correctly rounded
 * operation, so each value equals Number(token). Returns how many numbers were read, or -1
 * at anything else (exponents, long mantissas, junk) so the caller takes the general path.
 */
function parseCoordsFast(text: string, dim: number, latFirst: boolean, out: number[]): number {
  const len = text.length;
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  let dot = false;
  let negative = false;
  let inToken = false;
  let count = 0;
  let k = 0; // index within the current tuple
  let a = 0;
  let b = 0;
  for (let i = 0; i <= len; i++) {
    const c = i < len ? text.charCodeAt(i) : 32;
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      if (dot) scale++;
      inToken = true;
    } else if (c === 32 || c === 10 || c === 13 || c === 9) {
      if (!inToken) continue;
      if (digits === 0 || digits > 15) return -1;
      const v = negative ? -(mantissa / POW10[scale]) : mantissa / POW10[scale];
      count++;
      if (k === 0) a = v;
      else if (k === 1) b = v;
      if (++k === dim) {
        if (latFirst) out.push(b, a);
        else out.push(a, b);
        k = 0;
      }
      mantissa = 0;
      digits = 0;
      scale = 0;
      dot = false;
      negative = false;
      inToken = false;
    } else if (c === 46 && !dot) {
      dot = true;
      inToken = true;
    } else if (c === 45 && !inToken) {
      negative = true;
      inToken = true;
    } else {
      return -1;
    }
  }
  return count;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** Token-by-token fallback with Number(): exponents, long mantissas, and the error message for junk. */
function parseCoordsGeneral(text: string, dim: number, latFirst: boolean, out: number[]): number | string {
  const len = text.length;
  let i = 0;
  let k = 0;
  let count = 0;
  let a = 0;
  let b = 0;
  while (i < len) {
    while (i < len && isSpace(text.charCodeAt(i))) i++;
    if (i >= len) break;
    const start = i;
    while (i < len && !isSpace(text.charCodeAt(i))) i++;
    const token = text.slice(start, i);
    const v = Number(token);
    if (!Number.isFinite(v)) return `non-numeric coordinate "${token.slice(0, 40)}"`;
    count++;
    if (k === 0) a = v;
    else if (k === 1) b = v;
    if (++k === dim) {
      if (latFirst) out.push(b, a);
      else out.push(a, b);
      k = 0;
    }
  }
  return count;
}

/**
 * Appends the coordinates in `text` to `out` as x,y pairs (z dropped, axes swapped when
 * latitude comes first). Returns an error message, or null.
 */
export function parseCoords(text: string, dim: number, latFirst: boolean, out: number[], exactCount: boolean): string | null {
  const base = out.length;
  let count: number | string = parseCoordsFast(text, dim, latFirst, out);
  if (count < 0) {
    out.length = base;
    count = parseCoordsGeneral(text, dim, latFirst, out);
    if (typeof count === 'string') return count;
  }
  if (exactCount && count !== dim) return `gml:pos has ${count} numbers, expected srsDimension ${dim}`;
  if (count % dim !== 0) return `coordinate list has ${count} numbers, not a multiple of srsDimension ${dim}`;
  return null;
}
