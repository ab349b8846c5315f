import { CALL_ANALYZED } from '@engage/calls';
import { BROADCAST_RESPONSE } from '@engage/campaigns';
import { CONTACT_CREATED, CONTACT_UPDATED, DEAL_CREATED, DEAL_STAGE_CHANGED } from '@engage/crm';
import { MESSAGE_SENT, MESSAGING_EVENTS } from '@engage/messaging';
import type { EventContract } from '@engage/shared-kernel';
import { ENGINE_EVENTS } from './application/rule-engine';

// The events the rule engine consumes, as their owning contexts declare them: those rules run on,
// and message.sent, which moves a conversation's timers (with message.received).
export const RULE_ENGINE_EVENTS: EventContract[] = [
  ...MESSAGING_EVENTS.filter((contract) => (ENGINE_EVENTS as readonly string[]).includes(contract.name)),
  MESSAGE_SENT,
  BROADCAST_RESPONSE,
  CONTACT_CREATED,
  CONTACT_UPDATED,
  DEAL_CREATED,
  DEAL_STAGE_CHANGED,
  CALL_ANALYZED,
] as EventContract[];

export const RULE_ENGINE_SOURCES = [...new Set(RULE_ENGINE_EVENTS.map((contract) => contract.source))];
