import cliProgress from 'cli-progress';
import { generateSample } from '../../sample/generate.js';
import type { SampleProfileName } from '../../sample/profile.js';
import { printJson } from '../output.js';

export interface SampleCommandOptions {
  out: string;
  /** Absent: the profile's own size (5000 for `parcels`). */
  parcels?: number;
  profile?: SampleProfileName;
  scale?: number;
  seed: string;
  /** Absent: night 0, the sample as generated. */
  night?: number;
  json: boolean;
}

/** `nordprop sample --out DIR [--parcels N | --profile national [--scale S]] [--seed S] [--night N]`. */
export async function sampleCommand(options: SampleCommandOptions): Promise<number> {
  // Each value was checked as it was parsed (cli/arguments.ts); whether the profile takes it is
  // the generator's to say (a RangeError below).
  const { parcels, profile = 'parcels', scale } = options;
  const bar = !options.json && process.stderr.isTTY
    ? new cliProgress.SingleBar({ format: ' sample |{bar}| {value}/{total} parcels and properties', stream: process.stderr }, cliProgress.Presets.shades_classic)
    : undefined;
  let started = false;
  let result;
  try {
    result = await generateSample({
      outDir: options.out,
      parcels,
      profile,
      scale,
      seed: options.seed,
      night: options.night,
      onProgress: (done, total) => {
        if (!bar) return;
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      },
    });
  } catch (error) {
    bar?.stop();
    // A size the profile does not take is the user's to fix, not a crash.
    if (error instanceof RangeError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  bar?.stop();
  if (options.json) printJson(result);
  else {
    const size = `${result.profile === 'national' ? `national profile at scale ${result.scale}: ` : ''}${result.night > 0 ? `night ${result.night}, ` : ''}`;
    console.log(
      `${result.skipped ? 'sample already up to date' : 'wrote sample'} in ${result.outDir}: ${size}${result.parcels} Norwegian parcels, ` +
        `${result.addresses} addresses, ${result.seProperties} Swedish properties`,
    );
  }
  return 0;
}
