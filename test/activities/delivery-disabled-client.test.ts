import { describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { attemptDelivery } from '../../activities/deliveries.js';
import { createClient, disableClient } from '../../api/auth/clients.js';
import { getPool } from '../../lib/db.js';
import { activityTestDatabase } from '../support/database.js';

/**
 * A disabled client's tokens stop working; its webhooks stop too. Its pending deliveries are
 * cancelled at their next attempt, as a paused subscription's are, before any connection.
 */

activityTestDatabase();

describe('a delivery of a disabled client', () => {
  it('is cancelled at its next attempt with the reason, and nothing is posted', async () => {
    const pool = getPool();
    const { clientId } = await createClient(pool, { name: 'webhook receiver', tier: 'standard', scopes: ['subscriptions.write'], sandbox: false });
    const subscriptionId = '7a1c9a3e-2b7d-4c1e-9f0a-3d5b8e2c7a15';
    const eventId = '00000000-0000-4000-8000-0000000000d1';
    await pool.query(
      `INSERT INTO subscription (subscription_id, client_id, target_kind, target_country, target_cadastre_id, events, webhook_url, secret_encrypted)
       VALUES ($1, $2, 'PROPERTY', 'NO', '0301-1-1-0-0', '{OWNER_CHANGED}', 'https://receiver.example/hook', 'sealed')`,
      [subscriptionId, clientId],
    );
    await pool.query(
      `INSERT INTO event_outbox (event_id, subscription_id, event_type, target_kind, country, cadastre_id, changed_field)
       VALUES ($1, $2, 'OWNER_CHANGED', 'PROPERTY', 'NO', '0301-1-1-0-0', 'owners')`,
      [eventId, subscriptionId],
    );
    await disableClient(pool, clientId);
    const result = await new MockActivityEnvironment().run(attemptDelivery, { eventId, attempt: 1 });
    expect(result).toEqual({ outcome: 'CANCELLED', error: 'client disabled' });
    const row = (await pool.query(`SELECT status, last_error, attempts FROM event_outbox WHERE event_id = $1`, [eventId])).rows[0];
    expect(row).toEqual({ status: 'CANCELLED', last_error: 'client disabled', attempts: 0 });
  });
});
