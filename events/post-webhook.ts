import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

export interface PostResult {
  /** Absent when no response arrived (refused, TLS failure, timeout). */
  statusCode?: number;
  error?: string;
  durationMs: number;
}

/**
 * POSTs one delivery. No redirects are followed (a 3xx is a failed attempt, like any non-2xx),
 * and the whole exchange, response body included, must finish within `timeoutMs`. Connections
 * are kept alive per process: a burst of events to one receiver reuses them.
 */
export class WebhookPoster {
  private readonly httpsAgent: https.Agent;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  constructor(private readonly timeoutMs: number, caFile?: string) {
    const ca = caFile ? [...tls.rootCertificates, readFileSync(caFile, 'utf8')] : undefined;
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, ca });
  }

  post(url: string, headers: Record<string, string>, body: Buffer): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Omit<PostResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ ...result, durationMs: elapsed() });
      };
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        finish({ error: `not a URL: ${url}` });
        return;
      }
      const secure = target.protocol === 'https:';
      const request = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { ...headers, 'content-length': String(body.length) },
      });
      const deadline = setTimeout(() => request.destroy(new Error(`no response within ${this.timeoutMs} ms`)), this.timeoutMs);
      request.on('response', (response) => {
        // The body is not used; read it to the end so the connection can be reused.
        response.resume();
        response.on('end', () => finish({ statusCode: response.statusCode }));
        response.on('error', (error) => finish({ statusCode: response.statusCode, error: error.message }));
      });
      request.on('error', (error) => finish({ error: error.message }));
      request.end(body);
    });
  }

  close(): void {
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }
}
