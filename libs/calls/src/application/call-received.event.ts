import { defineEvent, isPayloadObject, pickScalars, type TimelineProjection, uuidOrNull } from '@engage/shared-kernel';
import type { CallRecordView } from '../domain/call-record';

// Internal for now (no §6 webhook kind is about it): the contact's timeline shows the call as soon
// as it is registered (its processing job is enqueued with it, call-processing.job.ts).
export type CallReceivedPayload = { call_record: CallRecordView; actor_id: string | null };

const minutes = (seconds: unknown): string =>
  typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 0 ? ` (${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')})` : '';

function receivedTimeline({ call_record: call }: CallReceivedPayload): TimelineProjection | undefined {
  if (!isPayloadObject(call) || uuidOrNull(call.contact_id) === null) return undefined;
  const direction = call.direction === 'outbound' ? 'Outbound' : 'Inbound';
  return {
    contact_id: uuidOrNull(call.contact_id),
    deal_id: null,
    summary: `${direction} call recorded${minutes(call.duration_seconds)}`,
    data: pickScalars(call, ['id', 'direction', 'duration_seconds', 'call_timestamp', 'agent_user_id', 'status']),
    touches: 'contact',
  };
}

export const CALL_RECEIVED = defineEvent<CallReceivedPayload>({
  name: 'call.received',
  source: 'calls',
  version: 1,
  description: 'a call recording was registered (uploaded to the CDN or given by address); its processing starts from here',
  timeline: receivedTimeline,
});
