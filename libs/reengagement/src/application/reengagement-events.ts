import { defineEvent, isPayloadObject, snippet, textOrNull, type TimelineProjection, uuidOrNull } from '@engage/shared-kernel';
import type { NudgeView } from '../domain/nudge';

export type NudgePayload = { nudge: NudgeView; actor_id: string | null };

// §6's activity AI_REENGAGEMENT_SENT on the contact's timeline (the entry's `data.activity`).
const nudgeTimeline = (payload: NudgePayload): TimelineProjection | undefined => {
  const nudge = (payload as { nudge?: unknown }).nudge;
  if (!isPayloadObject(nudge)) return undefined;
  const text = snippet(nudge.text);
  return {
    contact_id: uuidOrNull(nudge.contact_id),
    deal_id: null,
    summary: text ? `AI re-engagement sent: ${text}` : 'AI re-engagement sent',
    touches: 'contact',
    data: {
      activity: 'AI_REENGAGEMENT_SENT',
      nudge_id: uuidOrNull(nudge.id),
      conversation_id: uuidOrNull(nudge.conversation_id),
      message_id: uuidOrNull(nudge.message_id),
      provider: textOrNull(nudge.provider, 20),
      text: textOrNull(nudge.text, 1000),
    },
  };
};

export const AI_REENGAGEMENT_SENT = defineEvent<NudgePayload>({
  name: 'reengagement.nudge.sent',
  source: 'reengagement',
  version: 1,
  description: 'an AI re-engagement nudge was sent to the customer (activity AI_REENGAGEMENT_SENT)',
  timeline: nudgeTimeline,
});
