import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type pg from 'pg';
import type { ApiContext } from '../context.js';
import { callerOf } from '../request-types.js';
import { checkCountry, normalCadastreId } from '../cadastre-id.js';
import { ApiProblem, badRequest, notFound } from '../problem.js';
import { idempotencyHeaders, idempotent } from '../idempotency.js';
import { emptyResponse, idempotentReplayedHeader, itemsOf, jsonResponse, locationHeader, operationSchema, withHeaders } from '../schemas/operation.js';
import { EVENT_TYPES, SubscriptionTarget as SubscriptionTargetSchema } from '../schemas/resources.js';
import { ref } from '../schemas/values.js';
import { sealSecret } from '../../lib/secrets/secret-box.js';
import { propertyVisible } from '../store/property.js';
import { companyVisible } from '../store/visibility.js';
import { deleteSubscription, insertSubscription, listSubscriptions, lockedSubscriptionCount, type SubscriptionTarget } from '../store/subscriptions.js';
import { TargetPolicy, WebhookTargetRefused } from '../../events/target-policy.js';

const createBody = Type.Object(
  {
    // The shared schema by reference, typed as that schema.
    target: Type.Unsafe<Static<typeof SubscriptionTargetSchema>>(ref('SubscriptionTarget')),
    events: Type.Array({ type: 'string', enum: EVENT_TYPES } as const, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true }),
    webhookUrl: Type.String({ format: 'uri', pattern: '^https://', maxLength: 2000, description: 'HTTPS endpoint receiving the CloudEvents' }),
    secret: Type.String({ minLength: 16, maxLength: 256, description: 'The signing secret for Service-Signature; never returned' }),
  },
  { additionalProperties: false },
);

export function registerSubscriptionRoutes(fastify: FastifyInstance, ctx: ApiContext): void {
  // Request types inferred from the route schemas (schemas/operation.ts).
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Where webhooks may go (docs/webhooks.md): global unicast addresses and what the operator allows.
  const targets = new TargetPolicy(ctx.config.webhooks.allowedHosts);
  const maxSubscriptions = ctx.config.webhooks.maxSubscriptionsPerClient;

  app.post('/subscriptions', {
    config: { access: 'subscriptions.write' },
    schema: operationSchema({
      operationId: 'createSubscription',
      summary: 'Subscribe a webhook to change events of a property or a company',
      description:
        'Requires an Idempotency-Key: the same key and body within 24 h returns the same subscription and creates no second one; the same key with another body is 409. '
        + 'The webhookUrl must be HTTPS and its host must be, and resolve to, public (global unicast) addresses only: loopback, private, link-local, unique-local, '
        + 'CGNAT, multicast and other special-purpose addresses are 400 WEBHOOK_URL_NOT_ALLOWED, unless the operator allows them. '
        + `A client has at most ${maxSubscriptions} subscriptions: one more is 409 SUBSCRIPTION_LIMIT_REACHED.`,
      tags: ['subscriptions'],
      access: 'subscriptions.write',
      headers: idempotencyHeaders,
      body: createBody,
      responses: {
        201: withHeaders(jsonResponse('The new subscription', ref('Subscription')), {
          Location: locationHeader('The new subscription'),
          'Idempotent-Replayed': idempotentReplayedHeader(),
        }),
      },
      errors: [409, 413, 415],
    }),
    handler: async (request, reply) => {
      const caller = callerOf(request);
      const body = request.body;
      // Before the transaction: this may wait for DNS.
      await checkWebhookUrl(targets, body.webhookUrl);
      const stored = await idempotent(ctx.db, { clientId: caller.clientId, key: request.headers['idempotency-key'], operation: 'createSubscription', body }, async (tx) => {
        if ((await lockedSubscriptionCount(tx, caller.clientId)) >= maxSubscriptions) {
          throw new ApiProblem(409, 'SUBSCRIPTION_LIMIT_REACHED', `this client already has the most subscriptions allowed (${maxSubscriptions}); delete one before creating another`);
        }
        const target = await checkTarget(ctx, tx, body.target, caller.sandbox);
        const subscription = await insertSubscription(tx, caller.clientId, {
          target,
          events: body.events,
          webhookUrl: body.webhookUrl,
          sealedSecret: sealSecret(ctx.keys.webhookSecret, body.secret),
        });
        return { statusCode: 201, body: subscription, headers: { Location: `${ctx.baseUrl}/subscriptions/${subscription.id}` } };
      });
      for (const [name, value] of Object.entries(stored.headers ?? {})) reply.header(name, value);
      if (stored.replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(stored.statusCode).send(stored.body);
    },
  });

  app.get('/subscriptions', {
    config: { access: 'subscriptions.write' },
    schema: operationSchema({
      operationId: 'listSubscriptions',
      summary: 'The caller’s own subscriptions, active and paused',
      description: 'Only the calling client’s subscriptions; the signing secret is never returned.',
      tags: ['subscriptions'],
      access: 'subscriptions.write',
      responses: { 200: jsonResponse('The caller’s subscriptions', itemsOf(ref('Subscription'))) },
    }),
    handler: async (request) => ({ items: await listSubscriptions(ctx.db, callerOf(request).clientId) }),
  });

  app.delete('/subscriptions/:subscriptionId', {
    config: { access: 'subscriptions.write' },
    schema: operationSchema({
      operationId: 'deleteSubscription',
      summary: 'Delete a subscription; delivery stops immediately',
      description: '204 without a body. Another client’s subscription is 404 (SUBSCRIPTION_NOT_FOUND), exactly like one that does not exist.',
      tags: ['subscriptions'],
      access: 'subscriptions.write',
      params: Type.Object({ subscriptionId: Type.String({ format: 'uuid' }) }),
      responses: { 204: emptyResponse('Deleted; no body') },
    }),
    handler: async (request, reply) => {
      // Another tenant's subscription is 404, exactly like one that does not exist.
      if (!(await deleteSubscription(ctx.db, callerOf(request).clientId, request.params.subscriptionId))) {
        throw notFound('SUBSCRIPTION_NOT_FOUND', `no subscription ${request.params.subscriptionId}`);
      }
      return reply.code(204).send();
    },
  });
}

/** 400 WEBHOOK_URL_NOT_ALLOWED naming the reason, for a URL the target policy refuses. */
async function checkWebhookUrl(targets: TargetPolicy, url: string): Promise<void> {
  try {
    await targets.checkSubscriptionUrl(url);
  } catch (error) {
    if (!(error instanceof WebhookTargetRefused)) throw error;
    throw badRequest(`webhookUrl ${url} is not allowed: ${error.reason}; webhooks are delivered to public (global unicast) addresses only`, 'WEBHOOK_URL_NOT_ALLOWED');
  }
}

/** The target must exist in the served registers (and be a demo property for a sandbox); read in the caller's transaction. */
async function checkTarget(ctx: ApiContext, db: pg.PoolClient, target: SubscriptionTarget, sandbox: boolean): Promise<SubscriptionTarget> {
  if (target.kind === 'COMPANY') {
    if (!(await companyVisible(db, target.scheme, target.id, sandbox))) throw notFound('COMPANY_NOT_FOUND', `no company ${target.scheme}:${target.id}`);
    return target;
  }
  const country = checkCountry(ctx.countries, target.country);
  const cadastreId = normalCadastreId(country, target.cadastreId);
  if (!(await propertyVisible(db, country, cadastreId, sandbox))) throw notFound('PROPERTY_NOT_FOUND', `no property ${country} ${cadastreId}`);
  return { kind: 'PROPERTY', country, cadastreId };
}
