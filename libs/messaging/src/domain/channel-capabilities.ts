import { DomainError } from '@engage/shared-kernel';
import type { MediaKind } from './media';
import type { ChannelKind } from './statuses';

// A provider's rule for when a business may write. Meta: free-form within `freeFormHours` of the
// customer's last message; after that only a human agent's reply, tagged, within `humanAgentHours`.
export interface WindowRule {
  freeFormHours: number;
  humanAgentHours: number | null;
}

// What a kind of channel can do, declared by its adapter (or, for kinds without one yet, here).
export interface ChannelCapabilities {
  sendText: boolean;
  sendMedia: readonly MediaKind[];
  templates: boolean;
  receive: boolean;
  receipts: boolean;
  // Whether the agents' reply path may send on it (SMS is for broadcasts and sequences only, §1).
  agentReply: boolean;
  // Whether chat-lite-send (§4.1, a phone number through the chat-app provider) may send on it.
  directSend: boolean;
  window: WindowRule | null;
  // Whether its inbound receiver authenticates by a token of the account's own (the chat app's
  // address); the others are verified by the provider's signature or read from the mailbox.
  inboundToken: boolean;
}

const HOUR = 3_600_000;

// The Messenger Platform's and Instagram messaging's standard window, and the HUMAN_AGENT tag's.
export const META_WINDOW: WindowRule = { freeFormHours: 24, humanAgentHours: 7 * 24 };

export const windowClosesAt = (rule: WindowRule | null, lastCustomerMessageAt: Date | null): Date | null =>
  rule && lastCustomerMessageAt ? new Date(lastCustomerMessageAt.getTime() + rule.freeFormHours * HOUR) : null;

export type WindowDecision = { send: 'free_form' } | { send: 'human_agent_tag' };

// Whether a send may go out now, and how. `human`: written by a person in the inbox (not a rule, bot,
// sequence or re-engagement). Refused with 422 naming the window that closed and when, so nothing is
// sent that the provider would silently drop.
export function decideWindow(rule: WindowRule | null, lastCustomerMessageAt: Date | null, now: Date, human: boolean): WindowDecision {
  if (!rule) return { send: 'free_form' };
  if (!lastCustomerMessageAt) {
    throw windowClosed('standard', null, 'The customer has not written on this channel yet, so the business may not start the conversation');
  }
  const since = now.getTime() - lastCustomerMessageAt.getTime();
  const freeFormClosed = new Date(lastCustomerMessageAt.getTime() + rule.freeFormHours * HOUR);
  if (since < rule.freeFormHours * HOUR) return { send: 'free_form' };
  if (!human || rule.humanAgentHours === null) {
    throw windowClosed(
      'standard',
      freeFormClosed,
      `The ${rule.freeFormHours}-hour messaging window closed at ${freeFormClosed.toISOString()}` +
        (human ? '' : '; automated messages may not be sent after it'),
    );
  }
  const humanClosed = new Date(lastCustomerMessageAt.getTime() + rule.humanAgentHours * HOUR);
  if (since < rule.humanAgentHours * HOUR) return { send: 'human_agent_tag' };
  throw windowClosed('human_agent', humanClosed, `The human agent window (${rule.humanAgentHours / 24} days) closed at ${humanClosed.toISOString()}`);
}

const windowClosed = (window: 'standard' | 'human_agent', closedAt: Date | null, message: string) =>
  new DomainError('unprocessable', 'channel.window_closed', message, { window, closed_at: closedAt?.toISOString() ?? null });

const META: ChannelCapabilities = {
  sendText: true,
  sendMedia: ['image', 'video', 'document'],
  templates: false,
  receive: true,
  receipts: true,
  agentReply: true,
  directSend: false,
  window: META_WINDOW,
  inboundToken: false,
};

// Every kind's declaration. The reply path reads it to tell "not allowed on this kind" from "no
// adapter on this server" (SMS replies are not part of the inbox, §1).
export const CHANNEL_CAPABILITIES: Record<ChannelKind, ChannelCapabilities> = {
  chat_app: {
    sendText: true,
    sendMedia: ['image', 'video', 'document'],
    templates: false,
    receive: true,
    receipts: true,
    agentReply: true,
    directSend: true,
    window: null,
    inboundToken: true,
  },
  messenger: META,
  instagram: META,
  email: {
    sendText: true,
    sendMedia: ['image', 'video', 'document'],
    templates: false,
    receive: true,
    receipts: false,
    agentReply: true,
    directSend: false,
    window: null,
    inboundToken: false,
  },
  sms: {
    sendText: true,
    sendMedia: [],
    templates: false,
    receive: true,
    receipts: true,
    agentReply: false,
    directSend: false,
    window: null,
    inboundToken: false,
  },
};
