// The floors of nordprop's code: a folder may import its own floor and the floors below it,
// never one above (`npm run lint:imports`; `npm test` runs it before the suite).
//
//   6  cli/ bin/           the command line: composes everything, its tool verbs (sample,
//                          evaluate-*) included
//   5  api/ worker/        the two servers: the REST API, the worker's composition root
//   4  workflows/ store/   workflow code (Temporal sandbox, see below); read-side queries for the
//                          API and the CLI, over what the activities wrote (ingest progress)
//   3  activities/         download, stage, validate, publish, ledger, derive, deliveries
//   2  derive/ events/     the derived datasets; change events and their webhook deliveries
//   1  sources/            the adapters, their formats and publish helpers
//   0  lib/                the ground floor: domain types (lib/domain), database, config,
//                          secrets, Temporal plumbing (client, search attribute keys), and the
//                          run ledger's statements (lib/run-ledger.ts: written by activities/,
//                          read by derive/, api/ and cli/)
//
// Tools stand beside the building and may use any floor; production code (floors 0-5) never
// imports them: sample/ (the test-data generator) < evaluations/ (scores against the sample's
// truth) < bench/ < test/. Only cli/ may import sample/ and evaluations/, for its tool verbs.
//
// A source's folder holds its sample writer (sources/<country>/<id>/sample.ts): a file of the
// sample tool that lives beside its adapter. It is judged as sample/ is, and production code
// never imports it (sample/register-files.ts loads it by the source's folder).

const FLOORS = [
  ['lib'],
  ['sources'],
  ['derive', 'events'],
  ['activities'],
  ['workflows', 'store'],
  ['api', 'worker'],
  ['cli', 'bin'],
];
const TOOLS = ['sample', 'evaluations', 'bench', 'test'];
const CLI_TOOLS = ['sample', 'evaluations'];

const under = (folders) => `^(${folders.join('|')})/`;
const SAMPLE_ROLE = '^sources/[^/]+/[^/]+/sample\\.ts$';

const upward = FLOORS.slice(0, -1).map((floor, level) => ({
  name: `upward-from-${floor.join('-')}`,
  severity: 'error',
  comment: `${floor.join('/, ')}/ (floor ${level}) may import only its own floor and those below it.`,
  from: { path: under(floor) },
  to: { path: under(FLOORS.slice(level + 1).flat()) },
}));

const toolsInProduction = {
  name: 'production-imports-tool',
  severity: 'error',
  comment: 'Production code never imports the sample generator, the evaluations, the benchmarks or the tests.',
  from: { path: under(FLOORS.slice(0, -1).flat()), pathNot: SAMPLE_ROLE },
  to: { path: `${under(TOOLS)}|${SAMPLE_ROLE}` },
};

const cliTools = {
  name: 'cli-imports-bench-or-test',
  severity: 'error',
  comment: `cli/ may import ${CLI_TOOLS.join('/ and ')}/ (its tool verbs), never the benchmarks or the tests.`,
  from: { path: under(FLOORS.at(-1)) },
  to: { path: under(TOOLS.filter((tool) => !CLI_TOOLS.includes(tool))) },
};

const upwardTools = TOOLS.slice(0, -1).map((tool, index) => ({
  name: `upward-from-${tool}`,
  severity: 'error',
  comment: `${tool}/ may not import ${TOOLS.slice(index + 1).join('/, ')}/.`,
  from: { path: tool === 'sample' ? `${under([tool])}|${SAMPLE_ROLE}` : under([tool]) },
  to: { path: under(TOOLS.slice(index + 1)) },
}));

// Workflow code runs in Temporal's deterministic sandbox, bundled with its imports: at run time it
// may load only the workflow SDK and pure, deterministic modules. Type-only imports (the
// activities' signatures) are erased and allowed.
const workflowSandbox = {
  name: 'workflow-sandbox',
  severity: 'error',
  comment: 'workflows/ loads at run time only @temporalio/workflow and /common, lib/domain, the search attribute keys and describeError.',
  from: { path: '^workflows/' },
  to: {
    dependencyTypesNot: ['type-only'],
    pathNot: [
      '^workflows/',
      '^lib/domain/',
      '^lib/temporal/search-attribute-keys\\.ts$',
      '^lib/describe-error\\.ts$',
      '^node_modules/@temporalio/(workflow|common)/',
    ],
  },
};

// What workflow code may load must itself load nothing beyond the workflow-safe packages.
const workflowSafeModules = {
  name: 'workflow-safe-module',
  severity: 'error',
  comment: 'The lib/ modules workflows load stay pure: they import only lib/domain and @temporalio/common.',
  from: { path: ['^lib/domain/', '^lib/temporal/search-attribute-keys\\.ts$', '^lib/describe-error\\.ts$'] },
  to: {
    dependencyTypesNot: ['type-only'],
    pathNot: ['^lib/domain/', '^node_modules/@temporalio/common/'],
  },
};

// The shared readers and helpers of sources/ serve every country: a format reader, a geometry
// helper or a publish step knows no register. What is one country's (its ids, its registers'
// file layouts) lives in that country's folder and calls them, never the other way round.
const sharedSourceCode = {
  name: 'shared-source-code-imports-a-country',
  severity: 'error',
  comment: 'sources/formats/, sources/geo/ and sources/publish/ import nothing from a country folder (sources/no/, sources/se/).',
  from: { path: '^sources/(formats|geo|publish)/' },
  to: { path: '^sources/(no|se)/' },
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [...upward, toolsInProduction, cliTools, ...upwardTools, workflowSandbox, workflowSafeModules, sharedSourceCode],
  options: {
    // TypeScript's own view of the imports, so `import type` is seen (and told apart).
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // Packages are in the graph (the sandbox rule looks at them) but not cruised; test/ stays in
    // the graph, so that an import of it from production code is seen.
    exclude: { path: '^(dist|\\.data|\\.tools|\\.git)/' },
  },
};
