import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../lib/config.js';
import { sourceHasRuns } from '../../lib/run-ledger.js';
import { html, type Html } from './html.js';
import { page } from './layout.js';
import { holdsOperatorSecret, operatorSecret } from './operator-credential.js';
import { isCatalogued } from './catalogue.js';
import { temporalLinks } from './temporal-links.js';
import { temporalReader } from './temporal-reader.js';
import { nightsPage } from './pages/nights.js';
import { sourcePage } from './pages/source.js';
import { runPage } from './pages/run.js';
import { runningPage } from './pages/running.js';

const REALM = 'Basic realm="nordprop ops", charset="UTF-8"';

/**
 * The ops console at /ops (docs/operations.md): read-only HTML pages over the run ledger and
 * the running workflows, for an operator holding NORDPROP_OPS_TOKEN. Without that variable
 * nothing is registered, so /ops answers 404 like any unknown path. Not in /openapi.yaml: it is
 * the operators' surface, not the API's contract. `nordprop ops` serves it alone, on a port of its own.
 */
export function registerOpsConsole(app: FastifyInstance, ctx: { db: pg.Pool; config: Config }): void {
  const secret = operatorSecret();
  if (!secret) return;
  const links = temporalLinks(ctx.config);
  const temporal = temporalReader(ctx.config);
  app.register(async (ops) => {
    ops.addHook('onRequest', async (request, reply) => {
      if (!holdsOperatorSecret(request.headers.authorization, secret)) {
        // A client's bearer token is refused like no credential at all: it is not the operator secret.
        return reply.code(401).header('WWW-Authenticate', REALM).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8')
          .send('The ops console needs the operator credential (NORDPROP_OPS_TOKEN), as HTTP Basic password or bearer token.\n');
      }
    });
    ops.addHook('onClose', () => temporal.close());

    const send = (reply: FastifyReply, status: number, content: { title: string; body: Html; refreshSeconds?: number }) => {
      const nonce = randomBytes(16).toString('base64');
      return reply
        .code(status)
        .header('Content-Security-Policy', `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`)
        .header('Cache-Control', 'no-store')
        .header('Referrer-Policy', 'no-referrer')
        .header('X-Content-Type-Options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(page({ ...content, nonce, temporalUi: links.home }));
    };
    const notFound = (reply: FastifyReply, what: Html) => send(reply, 404, { title: 'Not found', body: html`<h1>Not found</h1><p>${what}</p><p><a href="/ops">Back to the nights</a></p>` });
    const hidden = { schema: { hide: true } };

    ops.get('/ops', hidden, async (_request, reply) => send(reply, 200, await nightsPage(ctx.db, links)));
    ops.get('/ops/running', hidden, async (_request, reply) => send(reply, 200, await runningPage(ctx.db, links, temporal.get)));
    ops.get('/ops/sources/:sourceId', hidden, async (request: FastifyRequest<{ Params: { sourceId: string } }>, reply) => {
      const { sourceId } = request.params;
      const known = isCatalogued(sourceId) || (await sourceHasRuns(ctx.db, sourceId));
      if (!known) return notFound(reply, html`No source or derived dataset <code>${sourceId}</code>.`);
      return send(reply, 200, await sourcePage(ctx.db, links, sourceId));
    });
    ops.get('/ops/runs/:runId', hidden, async (request: FastifyRequest<{ Params: { runId: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      const query = request.query;
      const pageNumber = Number.parseInt(query.page ?? '1', 10);
      const content = await runPage(ctx.db, links, request.params.runId, {
        source: query.source?.slice(0, 100),
        reason: query.reason?.slice(0, 200),
        page: Number.isSafeInteger(pageNumber) && pageNumber > 0 ? pageNumber : 1,
      });
      if (!content) return notFound(reply, html`No run <code>${request.params.runId}</code> in the ledger.`);
      return send(reply, 200, content);
    });
  });
}
