import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../lib/config.js';

/**
 * No Docker engine runs where the tests run, so docker-compose.yml is checked as Compose would
 * read it: against the Compose Specification's JSON Schema (vendored, see
 * test/fixtures/compose-spec/README.md), then for the rules the stack depends on.
 */

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  environment?: Record<string, string> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  volumes?: (string | { source?: string; target: string })[];
  healthcheck?: unknown;
  restart?: string;
}

const text = readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8');
// Compose resolves YAML merge keys (`<<: *anchor`) before it validates.
const compose = parse(text, { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const nordpropServices = ['migrate', 'schedule', 'worker', 'api'];

const commandOf = (service: Service): string[] =>
  typeof service.command === 'string' ? service.command.split(/\s+/) : (service.command ?? []);

const dependencies = (service: Service): Record<string, string | undefined> =>
  Array.isArray(service.depends_on)
    ? Object.fromEntries(service.depends_on.map((name) => [name, undefined]))
    : Object.fromEntries(Object.entries(service.depends_on ?? {}).map(([name, dependency]) => [name, dependency.condition]));

const environmentOf = (service: Service): Record<string, string> =>
  Array.isArray(service.environment)
    ? Object.fromEntries(service.environment.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]))
    : (service.environment ?? {});

const mountTargets = (service: Service): string[] =>
  // Short syntax SOURCE:TARGET[:MODE], its source perhaps a `${VAR:-default}` with a colon of its own.
  (service.volumes ?? []).map((volume) => (typeof volume === 'string' ? volume.replace(/\$\{[^}]*\}/g, 'source').split(':')[1] : volume.target));

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema', () => {
    const schema = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/compose-spec/compose-spec.json'), 'utf8')) as Record<string, unknown>;
    // Its $schema names draft-07 by a URL Ajv does not know (Ajv's default is draft-07 itself);
    // strict off because it is a third party's schema, written for any validator.
    delete schema.$schema;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
  });

  it('runs current Temporal images: the server with the admin tools, never the retired auto-setup image', () => {
    const images = Object.values(services).map((service) => service.image ?? '');
    expect(images.filter((image) => image.startsWith('temporalio/auto-setup'))).toEqual([]);
    expect(services.temporal?.image).toMatch(/^temporalio\/server:/);
    // Temporal's schema is set up by a one-shot admin-tools service the server waits for.
    const schemaSetup = Object.entries(services).filter(([, service]) => service.image?.startsWith('temporalio/admin-tools:') && /temporal-sql-tool/.test(JSON.stringify(service.command)));
    expect(schemaSetup).toHaveLength(1);
    expect(dependencies(services.temporal!)[schemaSetup[0]![0]]).toBe('service_completed_successfully');
    expect(services.postgis?.image).toMatch(/^postgis\/postgis:15-3\.\d+$/);
  });

  it('builds the app image once and runs every nordprop service from it', () => {
    const built = Object.entries(services).filter(([, service]) => service.build !== undefined);
    expect(built.map(([name]) => name)).toHaveLength(1);
    const image = built[0]![1].image;
    expect(image).toBeTruthy();
    for (const name of nordpropServices) expect(services[name]?.image, name).toBe(image);
    // Whatever runs the nordprop command runs the built image.
    for (const [name, service] of Object.entries(services)) {
      if (commandOf(service).includes('bin/nordprop.js')) expect(service.image, name).toBe(image);
    }
  });

  it('migrates in a one-shot service that the API, the worker and the schedule wait for', () => {
    const migrate = services.migrate!;
    expect(commandOf(migrate).slice(-1)).toEqual(['setup']);
    expect(migrate.restart ?? 'no').toBe('no');
    for (const name of ['api', 'worker', 'schedule']) expect(dependencies(services[name]!).migrate, name).toBe('service_completed_successfully');
    // Nothing else sets up the database: the worker and the API only run.
    expect(commandOf(services.worker!).slice(-1)).toEqual(['worker']);
    expect(commandOf(services.api!).slice(-1)).toEqual(['api']);
  });

  it('creates the nightly schedule in a one-shot service', () => {
    const schedule = services.schedule!;
    expect(commandOf(schedule).slice(-2)).toEqual(['schedule', 'create']);
    expect(schedule.restart ?? 'no').toBe('no');
  });

  it("mounts an inbox into the worker at <NORDPROP_DATA_DIR>/inbox", () => {
    const worker = services.worker!;
    const dataDir = environmentOf(worker).NORDPROP_DATA_DIR;
    expect(dataDir).toBeTruthy();
    expect(mountTargets(worker)).toContain(`${dataDir}/inbox`);
  });

  it('waits only on services it has, and on health only where a health check is defined', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of Object.entries(dependencies(service))) {
        expect(services[dependency], `${name} depends on ${dependency}`).toBeDefined();
        if (condition === 'service_healthy') expect(services[dependency]!.healthcheck, `${dependency} has a health check`).toBeDefined();
      }
    }
  });

  it('runs only nordprop commands that exist', async () => {
    const run = promisify(execFile);
    const help = async (...args: string[]) => (await run(process.execPath, [path.join(PROJECT_ROOT, 'bin/nordprop.js'), ...args, '--help'])).stdout;
    const commandLines = nordpropServices.map((name) => {
      const command = commandOf(services[name]!);
      return { name, args: command.slice(command.indexOf('bin/nordprop.js') + 1) };
    });
    const withAction = commandLines.filter(({ args }) => args[1]);
    // The CLI is slow to start on a loaded machine: every help at once.
    const [verbs, ...actionHelps] = await Promise.all([help(), ...withAction.map(({ args }) => help(args[0]!))]);
    for (const { name, args } of commandLines) expect(verbs, name).toMatch(new RegExp(`^ {2}${args[0]}\\b`, 'm'));
    // An action argument must be one of its verb's choices (`schedule create`).
    withAction.forEach(({ name, args }, i) => expect(actionHelps[i], name).toContain(`"${args[1]}"`));
  }, 300_000);
});
