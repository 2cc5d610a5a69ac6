/**
 * Small pieces the energy, certification and permit sample writers share: writing a text file
 * from a generator of pieces with backpressure, and day arithmetic on ISO dates.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { pacedReadable } from '../index-window.js';

export async function writePieces(path: string, pieces: Iterable<string>): Promise<void> {
  await pipeline(pacedReadable(pieces), createWriteStream(path));
}

const DAY_MS = 86_400_000;

/** `yyyy-MM-dd` of a UTC day. */
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `yyyy-MM-dd` plus `days` (negative to go back). */
export const shiftDay = (iso: string, days: number) => isoDay(Date.parse(`${iso}T00:00:00Z`) + days * DAY_MS);

/** A day of `year`, 0-based, as `yyyy-MM-dd`. */
export const dayOfYear = (year: number, day: number) => isoDay(Date.UTC(year, 0, 1) + day * DAY_MS);

/** The last day the sample registers cover: no certificate or decision lies after it. */
export const SAMPLE_TODAY = '2025-10-31';
