import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { decodeCells, encodeCells } from '../../lib/copy-text.js';

describe('COPY text encoding', () => {
  it('escapes what COPY treats specially and writes NULL, numbers, booleans and arrays', () => {
    expect(encodeCells(['a\tb', 'back\\slash', 'two\nlines\r', null, 12.5, true, ['x', 'y,z', 'q"uote']])).toBe(
      'a\\tb\tback\\\\slash\ttwo\\nlines\\r\t\\N\t12.5\tt\t{"x","y,z","q\\\\"uote"}',
    );
  });

  it('escapes long values too (geometry text takes another path)', () => {
    expect(encodeCells([`${'x'.repeat(60)}\t${'y'.repeat(60)}\\`])).toBe(`${'x'.repeat(60)}\\t${'y'.repeat(60)}\\\\`);
    expect(encodeCells(['SRID=4326;MULTIPOLYGON(((10.1 59.9,10.2 59.9,10.2 60.0,10.1 59.9)))'])).toBe('SRID=4326;MULTIPOLYGON(((10.1 59.9,10.2 59.9,10.2 60.0,10.1 59.9)))');
  });

  it('round-trips awkward values through a real COPY into PostgreSQL', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await client.connect();
    try {
      await client.query('CREATE TEMP TABLE copy_check (t text, n double precision, b boolean, a text[])');
      const values = ['Øvre Storgate 1\t"B"\\ ;\nnew line', 1e-7, false, ['0301-1-2-0-0', 'with space', 'comma,inside', 'quote"inside', 'back\\slash']] as const;
      const stream = client.query(copyFrom('COPY copy_check FROM STDIN'));
      await new Promise<void>((resolve, reject) => {
        stream.on('finish', resolve).on('error', reject);
        stream.end(`${encodeCells(values)}\n${encodeCells([null, null, null, null])}\n`);
      });
      const rows = (await client.query('SELECT * FROM copy_check')).rows;
      expect(rows).toEqual([
        { t: values[0], n: 1e-7, b: false, a: [...values[3]] },
        { t: null, n: null, b: null, a: null },
      ]);
    } finally {
      await client.end();
    }
  });

  it('reads back what COPY TO writes: NULL, tabs, newlines, backslashes and what looks like an escape', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await client.connect();
    try {
      const values = ['tab\there', 'new\nline\rreturn', 'back\\slash \\N \\t', null, 'plain', '\b\f\v', ''];
      await client.query(`CREATE TEMP TABLE copy_out (${values.map((_, i) => `c${i} text`).join(', ')})`);
      await client.query(`INSERT INTO copy_out VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`, values);
      await client.query(`INSERT INTO copy_out (c4) VALUES ('only this')`);
      let text = '';
      for await (const chunk of client.query(copyTo('COPY copy_out TO STDOUT'))) text += chunk.toString();
      const lines = text.split('\n').filter(Boolean);
      expect(lines.map(decodeCells)).toEqual([values, [null, null, null, null, 'only this', null, null]]);
    } finally {
      await client.end();
    }
  });
});
