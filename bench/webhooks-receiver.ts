import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';

/**
 * A local HTTPS webhook receiver with a self-signed certificate (for 127.0.0.1 and localhost),
 * for the delivery tests and the webhook benchmark. Each path answers by its route (default:
 * 204); every request is kept with its raw body. The certificate is written to `dir` so the
 * worker can be told to trust it (NORDPROP_WEBHOOK_CA_FILE).
 */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** performance.now() at arrival (for intervals). */
  receivedAt: number;
  /** Date.now() at arrival (to compare with database timestamps). */
  receivedAtWallMs: number;
}

/** The status to answer the `n`-th request (1-based) on a path with. */
export type Route = (n: number, request: ReceivedRequest) => number;

export interface WebhookReceiver {
  url(pathname: string): string;
  caFile: string;
  requests: ReceivedRequest[];
  /** Requests per path so far (counted even when requests are not kept). */
  count(pathname: string): number;
  /** The requests received on one path, in order. */
  on(pathname: string): ReceivedRequest[];
  waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: { dir: string; routes?: Record<string, Route>; keepRequests?: boolean }): Promise<WebhookReceiver> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
  const caFile = path.join(options.dir, 'webhook-receiver-cert.pem');
  await writeFile(caFile, pems.cert);
  const requests: ReceivedRequest[] = [];
  const counts = new Map<string, number>();
  const server = https.createServer({ key: pems.private, cert: pems.cert, keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const pathname = new URL(req.url ?? '/', 'https://localhost').pathname;
      const received: ReceivedRequest = { path: pathname, headers: req.headers, rawBody: Buffer.concat(chunks), receivedAt: performance.now(), receivedAtWallMs: Date.now() };
      const n = (counts.get(pathname) ?? 0) + 1;
      counts.set(pathname, n);
      if (options.keepRequests !== false) requests.push(received);
      const status = options.routes?.[pathname]?.(n, received) ?? 204;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (pathname) => `https://127.0.0.1:${port}${pathname}`,
    caFile,
    requests,
    count: (pathname) => counts.get(pathname) ?? 0,
    on: (pathname) => requests.filter((r) => r.path === pathname),
    async waitFor(predicate, timeoutMs, what) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`webhook receiver: timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
