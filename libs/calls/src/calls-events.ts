import { defineEvent } from '@engage/shared-kernel';

// A cloud recording of a meeting, as the calls context will publish it. Provisional: nothing
// produces it yet, so its shape is fixed when the producer lands (and docs/webhooks.md with it).
export type MeetingRecording = {
  id: string;
  organization_id: string;
  meeting_id: string;
  topic: string | null;
  start_time: string;
  duration_minutes: number | null;
  share_url: string | null;
  created_at: string;
};

export type RecordingPayload = { recording: MeetingRecording; actor_id: string | null };

// §6 lists it among the webhook kinds; until the calls context records meetings it is in the
// catalogue (webhook configurations may subscribe to it) and never emitted.
export const ZOOM_RECORDING_COMPLETED = defineEvent<RecordingPayload>({
  name: 'zoom.recording.completed',
  source: 'calls',
  version: 1,
  description: 'a meeting’s cloud recording finished processing',
  produced: false,
  webhook: { record: 'recording', fields: ['id', 'organization_id', 'meeting_id', 'topic', 'start_time', 'duration_minutes', 'share_url', 'created_at'] },
});
