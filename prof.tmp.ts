import { hash } from 'node:crypto';
import { openInput } from './sources/formats/open-input.js';
import { noCadastre } from './sources/no/cadastre.js';
import { encodeCells } from './lib/copy-text.js';
const file = '.data/bench/sample/Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip';
const t = performance.now();
const input = await openInput(file, /\.gml$/i);
let rows = 0;
for await (const batch of noCadastre.parse(input.stream, { fileName: 'x' })) for (const r of batch) if (r.kind === 'row') { rows++; const c = encodeCells(r.values); hash('sha1', c, 'hex'); }
console.log(rows, ((performance.now() - t) / 1000).toFixed(2), 's');
