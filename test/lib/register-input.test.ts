import { expect, it } from 'vitest';
import { decodeInput, fileInputUrl, isFileUrl, isHttpUrl } from '../../lib/register-input.js';

it('a local file crosses the Temporal boundary as a file: URL and decodes back to the same path', () => {
  const file = '/data/in put/Ålesund ø/adresser #1 100%.zip';
  const url = fileInputUrl(file);
  expect(url).toBe('file:///data/in%20put/%C3%85lesund%20%C3%B8/adresser%20%231%20100%25.zip');
  expect(isFileUrl(url)).toBe(true);
  expect(isHttpUrl(url)).toBe(false);
  expect(decodeInput(url)).toBe(file);
});

it('an http(s) URL and a path configured on the worker pass through as they are', () => {
  const url = 'https://nedlasting.geonorge.no/a%20b.zip';
  expect(isHttpUrl(url)).toBe(true);
  expect(decodeInput(url)).toBe(url);
  expect(decodeInput('/srv/inbox/file.csv')).toBe('/srv/inbox/file.csv');
});

it('a malformed file: URL is refused', () => {
  expect(() => decodeInput('file://elsewhere/x.zip')).toThrow(TypeError);
});
