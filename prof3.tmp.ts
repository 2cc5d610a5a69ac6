import { parse } from 'csv-parse';
import { createRequire } from 'node:module';
import { openInput } from './sources/formats/open-input.js';
const Papa = createRequire('/tmp/pp/')('papaparse');
const file = '.data/bench/sample/Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip';
const mode = process.argv[2];
const t = performance.now();
const input = await openInput(file, /\.csv$/i);
let rows = 0;
if (mode === 'papa') {
  const s = input.stream.pipe(Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter: ';', fastMode: true, header: false }));
  s.on('data', () => rows++); await new Promise(r => s.on('end', r));
} else if (mode === 'split') {
  let rest = '';
  const dec = new TextDecoder();
  for await (const chunk of input.stream) {
    const text = rest + dec.decode(chunk, { stream: true });
    const lines = text.split('\n'); rest = lines.pop()!;
    for (const l of lines) { l.split(';'); rows++; }
  }
} else {
  const p = input.stream.pipe(parse({ delimiter: ';', quote: false }));
  p.on('data', () => rows++); await new Promise(r => p.on('end', r));
}
console.log(mode, rows, ((performance.now() - t) / 1000).toFixed(2), 's');
