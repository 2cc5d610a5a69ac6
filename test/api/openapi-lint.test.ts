import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { startApiTest, type ApiTest } from './support/api-test.js';

const run = promisify(execFile);
const bin = (name: string) => path.join(PROJECT_ROOT, 'node_modules/.bin', name);

/**
 * Both linters a client's tooling is likely to run, from their own command lines, over the
 * document the API serves, with the rule sets committed at the repository root: each reports
 * nothing, not even a warning.
 */
let api: ApiTest;
let dir: string;
let file: string;
beforeAll(async () => {
  api = await startApiTest();
  dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-lint-'));
  file = path.join(dir, 'openapi.yaml');
  const response = await fetch(`${api.baseUrl}/openapi.yaml`);
  expect(response.status).toBe(200);
  await writeFile(file, await response.text());
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  await api?.stop();
});

/** A linter's stdout, whatever its exit status (both exit non-zero when they find errors). */
async function lintOutput(command: string, args: string[]): Promise<string> {
  // No telemetry or update check: the suite runs without internet.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  try {
    return (await run(command, args, { cwd: PROJECT_ROOT, env, maxBuffer: 32 * 1024 * 1024 })).stdout;
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (stdout === undefined) throw error;
    return stdout;
  }
}

describe('the served /openapi.yaml lints clean', () => {
  it('under Redocly (.redocly.yaml: the recommended rules)', async () => {
    const report = JSON.parse(await lintOutput(bin('redocly'), ['lint', '--config', '.redocly.yaml', '--format', 'json', file])) as {
      totals: { errors: number; warnings: number };
      problems: { severity: string; ruleId: string; message: string; location?: { pointer?: string }[] }[];
    };
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('under Spectral (.spectral.yaml: spectral:oas)', async () => {
    // The report goes to a file: Spectral also prints a summary line on stdout.
    const reportFile = path.join(dir, 'spectral.json');
    await lintOutput(bin('spectral'), ['lint', '--ruleset', '.spectral.yaml', '--format', 'json', '--output', reportFile, file]);
    const results = JSON.parse(await readFile(reportFile, 'utf8')) as {
      code: string;
      severity: number;
      message: string;
      path: string[];
    }[];
    // Severity 0 is an error, 1 a warning, 2 information, 3 a hint: none of them.
    expect(results.map((r) => `${r.severity} ${r.code}: ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  }, 120_000);
});
