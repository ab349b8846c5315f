import { defineEvent, type DomainEvent } from '@engage/shared-kernel';

export type OrganizationCreatedPayload = { organization_id: string; name: string; owner_user_id: string };

// Other contexts set up their defaults for a new organization from this event (the CRM's
// default pipeline, for one).
export const ORGANIZATION_CREATED = defineEvent<OrganizationCreatedPayload>({
  name: 'organization.created',
  source: 'identity',
  version: 1,
  description: 'an organization was created (sign-up or an admin command), with its owner',
});

export const organizationCreated = (organizationId: string, name: string, ownerUserId: string): DomainEvent =>
  ORGANIZATION_CREATED.create({ organizationId, aggregateId: organizationId, payload: { organization_id: organizationId, name, owner_user_id: ownerUserId } });
