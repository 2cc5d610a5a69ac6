import type { Config } from '../../lib/config.js';

/** Links into the Temporal UI (TEMPORAL_UI_URL): a run's workflows, a source's ingests, one workflow. */
export interface TemporalLinks {
  home: string;
  run(runId: string): string;
  source(sourceId: string): string;
  workflow(workflowId: string): string;
}

export function temporalLinks(config: Pick<Config, 'temporalUiUrl' | 'temporalNamespace'>): TemporalLinks {
  const base = config.temporalUiUrl.replace(/\/+$/, '');
  const namespace = `${base}/namespaces/${encodeURIComponent(config.temporalNamespace)}`;
  const search = (query: string) => `${namespace}/workflows?query=${encodeURIComponent(query)}`;
  return {
    home: `${namespace}/workflows`,
    // The search attributes the run's workflows carry (lib/temporal/search-attribute-keys.ts).
    run: (runId) => search(`NordpropRunId="${runId}"`),
    // A derived dataset has no ingest workflow of its own: its runs are deriveDatasets workflows.
    source: (sourceId) => search(sourceId.startsWith('derive-') ? 'WorkflowType="deriveDatasets"' : `NordpropSource="${sourceId}"`),
    workflow: (workflowId) => `${namespace}/workflows/${encodeURIComponent(workflowId)}`,
  };
}
