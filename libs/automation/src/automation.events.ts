import { CONTACT_CREATED, CONTACT_UPDATED, DEAL_CREATED, DEAL_STAGE_CHANGED } from '@engage/crm';
import { MESSAGING_EVENTS } from '@engage/messaging';
import type { EventContract } from '@engage/shared-kernel';
import { ENGINE_EVENTS } from './application/rule-engine';

// The events the rule engine consumes, as their owning contexts declare them.
export const RULE_ENGINE_EVENTS: EventContract[] = [
  ...MESSAGING_EVENTS.filter((contract) => (ENGINE_EVENTS as readonly string[]).includes(contract.name)),
  CONTACT_CREATED,
  CONTACT_UPDATED,
  DEAL_CREATED,
  DEAL_STAGE_CHANGED,
] as EventContract[];

export const RULE_ENGINE_SOURCES = [...new Set(RULE_ENGINE_EVENTS.map((contract) => contract.source))];
