import type { Readable } from 'node:stream';
import { readDelimited } from '../../formats/delimited.js';
import { InputFormatError } from '../../formats/input-error.js';
import { utf8Text } from '../../formats/text-encoding.js';

/**
 * The code tables Lantmäteriet delivers beside a Fastighetsprisuttag (`K_LANKOD.txt`,
 * `K_KOMKOD.txt`, `K_FANGESKOD.txt`, `K_OTYP.txt`): `;`-separated, a header `KOD;BENAMNING`.
 * They are small (at most a few hundred codes), so they are held in memory and every record is
 * checked against them.
 */

export type CodeTableName = 'K_LANKOD' | 'K_KOMKOD' | 'K_FANGESKOD' | 'K_OTYP';
export const CODE_TABLES: readonly CodeTableName[] = ['K_LANKOD', 'K_KOMKOD', 'K_FANGESKOD', 'K_OTYP'];

export function codeTableOf(fileName: string): CodeTableName | null {
  const base = fileName.replace(/\.(txt|csv)$/i, '').toUpperCase();
  return (CODE_TABLES as readonly string[]).includes(base) ? (base as CodeTableName) : null;
}

export async function readCodeTable(stream: Readable, label: string): Promise<Map<string, string>> {
  const codes = new Map<string, string>();
  let header: string[] | undefined;
  for await (const lines of readDelimited(utf8Text(stream, label), { delimiter: ';', quote: '"' })) {
    for (const line of lines) {
      if (line.error !== undefined) throw new InputFormatError(`${label} line ${line.line}: unreadable code table line: ${line.error}`);
      if (!header) {
        header = line.fields.map((name) => name.trim().toUpperCase());
        if (header[0] !== 'KOD' || header[1] !== 'BENAMNING') throw new InputFormatError(`${label}: a code table starts with the header KOD;BENAMNING, got ${line.raw}`);
        continue;
      }
      const [code, name] = line.fields.map((value) => value.trim());
      if (!code || !name) throw new InputFormatError(`${label} line ${line.line}: a code needs both KOD and BENAMNING: ${line.raw}`);
      if (codes.has(code)) throw new InputFormatError(`${label} line ${line.line}: code ${code} is listed twice`);
      codes.set(code, name);
    }
  }
  if (!codes.size) throw new InputFormatError(`${label} holds no codes`);
  return codes;
}
