import type { EventKind, TargetKind } from './event-types.js';
import { cloudEventType } from './event-types.js';

/** An outbox row as the delivery reads it (schema/1763900100000_events.sql). */
export interface OutboxEvent {
  eventId: string;
  subscriptionId: string;
  eventType: EventKind;
  targetKind: TargetKind;
  country: string | null;
  cadastreId: string | null;
  orgScheme: string | null;
  orgId: string | null;
  changedField: string;
  createdAt: Date;
}

export interface CloudEventEnvelope {
  specversion: '1.0';
  type: string;
  source: string;
  id: string;
  time: string;
  datacontenttype: 'application/json';
  data: { country: string; cadastreId: string; changedField: string } | { scheme: string; id: string; changedField: string };
}

/**
 * The CloudEvents 1.0 structured-mode body of one event. Built only from the stored row, so
 * every attempt sends the same bytes: same `id`, same `time` (when the change was published).
 */
export function envelopeOf(event: OutboxEvent, apiBaseUrl: string): CloudEventEnvelope {
  return {
    specversion: '1.0',
    type: cloudEventType(event.eventType, event.targetKind),
    source: `${apiBaseUrl.replace(/\/+$/, '')}/subscriptions/${event.subscriptionId}`,
    id: event.eventId,
    // RFC 3339 in UTC with milliseconds (two publishes within a second still differ).
    time: event.createdAt.toISOString(),
    datacontenttype: 'application/json',
    data:
      event.targetKind === 'PROPERTY'
        ? { country: event.country!, cadastreId: event.cadastreId!, changedField: event.changedField }
        : { scheme: event.orgScheme!, id: event.orgId!, changedField: event.changedField },
  };
}

