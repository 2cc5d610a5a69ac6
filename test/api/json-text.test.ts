import { describe, expect, it } from 'vitest';
import { withMember } from '../../api/json-text.js';

describe('withMember', () => {
  it('adds the member at the end of PostgreSQL’s object text, compact or spaced, empty or not', () => {
    expect(JSON.parse(withMember('{"a":1,"b":{"c":"}"}}', 'links', [{ href: 'x' }]))).toEqual({ a: 1, b: { c: '}' }, links: [{ href: 'x' }] });
    expect(JSON.parse(withMember('{"a" : 1, "b" : [1, 2]}', 'links', []))).toEqual({ a: 1, b: [1, 2], links: [] });
    expect(withMember('{}', 'links', [])).toBe('{"links":[]}');
    expect(withMember('{ }', 'n', 'a"b')).toBe('{ "n":"a\\"b"}');
  });

  it('refuses what is not an object', () => {
    for (const text of ['[1]', '"x"', '', '{"a":1} x', 'null']) expect(() => withMember(text, 'links', []), text).toThrow(/not a JSON object/);
  });
});
