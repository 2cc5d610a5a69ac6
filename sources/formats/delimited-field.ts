/**
 * One field of a delimited line, read without parsing the rest: a night's hash pass needs the
 * record group of every line of a national file (an organisation number in the first column)
 * and parses only the lines that changed. Quoted fields are unquoted (a doubled quote stands for
 * one); a quoted field holding a line break never reaches here (the file is then staged whole).
 */
export function delimitedField(line: string, index: number, delimiter: string, quote?: string): string | undefined {
  let start = 0;
  for (let field = 0; start <= line.length; field++) {
    let value: string;
    let end: number;
    if (quote !== undefined && line[start] === quote) {
      // Up to the quote that is not doubled; the delimiter follows it.
      let text = '';
      let at = start + 1;
      for (;;) {
        const close = line.indexOf(quote, at);
        if (close === -1) return undefined; // unclosed: the parser rejects the line
        text += line.slice(at, close);
        if (line[close + 1] === quote) {
          text += quote;
          at = close + 2;
          continue;
        }
        end = close + 1;
        break;
      }
      value = text;
      if (end < line.length && line[end] !== delimiter) return undefined;
    } else {
      end = line.indexOf(delimiter, start);
      if (end === -1) end = line.length;
      value = line.slice(start, end);
    }
    if (field === index) return value;
    start = end + 1;
  }
  return undefined;
}

/** The position of `column` among a header line's names (trimmed, any case, a UTF-8 byte order mark dropped), or -1. */
export function headerColumn(header: string, column: string, delimiter: string, quote?: string): number {
  const text = header.replace(/^(\uFEFF|\u00EF\u00BB\u00BF)/, '');
  for (let index = 0; ; index++) {
    const name = delimitedField(text, index, delimiter, quote);
    if (name === undefined) return -1;
    if (name.trim().toLowerCase() === column.toLowerCase()) return index;
  }
}
