import { defineEvent, isPayloadObject, snippet, textOrNull, type TimelineProjection, uuidOrNull } from '@engage/shared-kernel';

// The outcome of a call record's processing, as published (docs/calls.md, "Processing pipeline").
export interface ProcessedCall {
  id: string;
  organization_id: string;
  contact_id: string | null;
  source: 'mobile' | 'meeting';
  status: 'completed' | 'failed';
  analyser: 'ai' | 'local-heuristic' | null;
  sentiment: 'positive' | 'neutral' | 'negative' | null;
  keywords: string[];
  action_items: string[];
  summary: string | null;
  failure_reason: string | null;
  completed_at: string;
}

export type ProcessedCallPayload = { call: ProcessedCall; actor_id: null };

const strings = (value: unknown, max: number): string[] =>
  Array.isArray(value)
    ? value
        .filter((item): item is string => typeof item === 'string')
        .slice(0, max)
        .map((item) => item.slice(0, 300))
    : [];

// The contact's activity entry: what the CRM shows, read defensively from the bus's JSON.
const callTimeline =
  (lead: (call: Record<string, unknown>) => string) =>
  (payload: ProcessedCallPayload): TimelineProjection | undefined => {
    const call = (payload as { call?: unknown }).call;
    if (!isPayloadObject(call)) return undefined;
    const contactId = uuidOrNull(call.contact_id);
    if (!contactId) return undefined;
    return {
      contact_id: contactId,
      deal_id: null,
      summary: lead(call),
      touches: 'contact',
      data: {
        call_record_id: uuidOrNull(call.id),
        source: textOrNull(call.source, 20),
        analyser: textOrNull(call.analyser, 20),
        sentiment: textOrNull(call.sentiment, 20),
        keywords: strings(call.keywords, 20),
        action_items: strings(call.action_items, 20),
        summary: textOrNull(call.summary, 2000),
        failure_reason: textOrNull(call.failure_reason, 500),
      },
    };
  };

export const CALL_ANALYZED = defineEvent<ProcessedCallPayload>({
  name: 'call.analyzed',
  source: 'calls',
  version: 1,
  description: 'a call recording was transcribed and analysed',
  timeline: callTimeline((call) => {
    const summary = snippet(call.summary);
    return `Call analysed (${textOrNull(call.sentiment, 20) ?? 'unknown'} sentiment)${summary ? `: ${summary}` : ''}`;
  }),
});

export const CALL_FAILED = defineEvent<ProcessedCallPayload>({
  name: 'call.failed',
  source: 'calls',
  version: 1,
  description: 'processing of a call recording failed for good',
  timeline: callTimeline((call) => `Call processing failed: ${snippet(call.failure_reason) || 'unknown reason'}`),
});
