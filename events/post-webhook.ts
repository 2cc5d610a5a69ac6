import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { loadConfig } from '../lib/config.js';
import { TargetPolicy, WebhookTargetRefused } from './target-policy.js';

export interface PostResult {
  /** Absent when no response arrived (refused, TLS failure, timeout). */
  statusCode?: number;
  error?: string;
  /**
   * Set when the target policy refused the URL or its addresses (no connection was made);
   * `permanent` when no later attempt can succeed (target-policy.ts).
   */
  refused?: { permanent: boolean };
  durationMs: number;
}

/**
 * POSTs one delivery. No redirects are followed (a 3xx is a failed attempt, like any non-2xx),
 * and the whole exchange, response body included, must finish within `timeoutMs`. Connections
 * are kept alive per process: a burst of events to one receiver reuses them.
 *
 * Only to where the target policy allows: an address written in the URL is checked before the
 * request; a host name is resolved once per new connection by the policy's lookup, which checks
 * every address and hands the connection only checked ones (a kept-alive connection was checked
 * when it was opened). A refusal is a failed attempt with no connection made.
 */
export class WebhookPoster {
  private readonly httpsAgent: https.Agent;

  /** `policy`: by default the operator's (NORDPROP_WEBHOOK_ALLOWED_HOSTS). */
  constructor(
    private readonly timeoutMs: number,
    caFile?: string,
    private readonly policy: TargetPolicy = new TargetPolicy(loadConfig().webhooks.allowedHosts),
  ) {
    const ca = caFile ? [...tls.rootCertificates, readFileSync(caFile, 'utf8')] : undefined;
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, ca });
  }

  post(url: string, headers: Record<string, string>, body: Buffer): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      const finish = (result: Omit<PostResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ ...result, durationMs: elapsed() });
      };
      let target: URL;
      try {
        target = this.policy.checkUrl(url).url;
      } catch (error) {
        finish(refusal(error));
        return;
      }
      // checkUrl admits https: only.
      const request = https.request(target, {
        method: 'POST',
        agent: this.httpsAgent,
        lookup: this.policy.lookup,
        headers: { ...headers, 'content-length': String(body.length) },
      });
      deadline = setTimeout(() => request.destroy(new Error(`no response within ${this.timeoutMs} ms`)), this.timeoutMs);
      request.on('response', (response) => {
        // The body is not used; read it to the end so the connection can be reused.
        response.resume();
        response.on('end', () => finish({ statusCode: response.statusCode }));
        response.on('error', (error) => finish({ statusCode: response.statusCode, error: error.message }));
      });
      request.on('error', (error) => finish(refusal(error)));
      request.end(body);
    });
  }

  close(): void {
    this.httpsAgent.destroy();
  }
}

function refusal(error: unknown): Omit<PostResult, 'durationMs'> {
  if (error instanceof WebhookTargetRefused) return { error: `${error.message}; no connection made`, refused: { permanent: error.permanent } };
  return { error: error instanceof Error ? error.message : String(error) };
}
