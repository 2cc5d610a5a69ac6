import cliProgress from 'cli-progress';
import { generateSample } from '../../sample/generate.js';
import { printJson } from '../output.js';

export async function sampleCommand(options: { out: string; parcels: string; seed: string; json: boolean }): Promise<number> {
  const parcels = Number(options.parcels);
  if (!Number.isInteger(parcels) || parcels < 1) {
    console.error(`--parcels must be a positive whole number, got "${options.parcels}"`);
    return 2;
  }
  const bar = !options.json && process.stderr.isTTY ? new cliProgress.SingleBar({ format: ' sample |{bar}| {value}/{total} parcels', stream: process.stderr }, cliProgress.Presets.shades_classic) : undefined;
  let started = false;
  const result = await generateSample({
    outDir: options.out,
    parcels,
    seed: options.seed,
    onProgress: (done, total) => {
      if (!bar) return;
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(done);
    },
  });
  bar?.stop();
  if (options.json) printJson(result);
  else console.log(`${result.skipped ? 'sample already up to date' : 'wrote sample'} in ${result.outDir}: ${result.parcels} parcels, ${result.addresses} addresses`);
  return 0;
}
