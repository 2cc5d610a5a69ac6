/**
 * The four change kinds a subscription may list, and the CloudEvents `type` each is delivered
 * as. The spec names only the property owner change (`no.service.property.owner_changed`); the
 * others follow its pattern, and a company-targeted event says `company` instead of `property`
 * so that a receiver knows the shape of `data` from the type alone.
 */
export const EVENT_KINDS = ['OWNER_CHANGED', 'TENANT_CHANGED', 'TRANSACTION_REGISTERED', 'BUILDING_PERMIT_CHANGED'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
export type TargetKind = 'PROPERTY' | 'COMPANY';

const TYPE_SUFFIX: Record<EventKind, string> = {
  OWNER_CHANGED: 'owner_changed',
  TENANT_CHANGED: 'tenant_changed',
  TRANSACTION_REGISTERED: 'transaction_registered',
  BUILDING_PERMIT_CHANGED: 'building_permit_changed',
};

export function cloudEventType(kind: EventKind, target: TargetKind): string {
  return `no.service.${target === 'PROPERTY' ? 'property' : 'company'}.${TYPE_SUFFIX[kind]}`;
}
