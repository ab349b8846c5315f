import { defineEvent } from '@engage/shared-kernel';
import type { ZoomMeeting } from './domain/zoom-event';

// A meeting's cloud recording, imported from Zoom as a call record (docs/calls.md, "Meeting recordings").
export type MeetingRecording = ZoomMeeting & {
  call_record_id: string;
  organization_id: string;
  recording_url: string;
  created_at: string;
};

export type RecordingPayload = { recording: MeetingRecording; actor_id: string | null };

// §6's Meeting kind: emitted once a recording file of the meeting is stored and its call record
// has entered the processing pipeline.
export const ZOOM_RECORDING_COMPLETED = defineEvent<RecordingPayload>({
  name: 'zoom.recording.completed',
  source: 'calls',
  version: 1,
  description: 'a meeting’s cloud recording was imported from Zoom as a call record',
  webhook: {
    record: 'recording',
    fields: [
      'call_record_id',
      'organization_id',
      'meeting_id',
      'meeting_uuid',
      'topic',
      'host_id',
      'host_email',
      'start_time',
      'duration_minutes',
      'share_url',
      'recording_url',
      'created_at',
    ],
  },
});
