import { createEvent, type DomainEvent } from '@engage/shared-kernel';

// Other contexts set up their defaults for a new organization from this event (the CRM's
// default pipeline, for one).
export const organizationCreated = (organizationId: string, name: string, ownerUserId: string): DomainEvent =>
  createEvent({ type: 'organization.created', source: 'identity', organizationId, aggregateId: organizationId, payload: { organization_id: organizationId, name, owner_user_id: ownerUserId } });
