import { defineContext, type MigrationClass } from '@engage/platform';
import { CallsModule } from './calls.module';
import { ZOOM_RECORDING_COMPLETED } from './calls-events';
import { CALL_RECEIVED } from './application/call-received.event';
import { processCallJob } from './application/call-processing.job';
import { CALL_ANALYZED, CALL_FAILED } from './application/pipeline-events';
import { zoomImportJob } from './application/zoom-import';
import { CALLS_SETTINGS } from './calls.settings';
import { CALL_TABLES } from './infrastructure/exposed-tables';
import { CreateCallRecords1763800013001 } from './infrastructure/migrations/0001-create-call-records';
import { IndexMeetingRecordings1763800013101 } from './infrastructure/migrations/0101-index-meeting-recordings';

export { CallsModule } from './calls.module';
export { ZOOM_RECORDING_COMPLETED, type MeetingRecording, type RecordingPayload } from './calls-events';
export {
  CALL_RECORDS,
  CALL_STATUSES,
  CALL_SOURCES,
  CALL_DIRECTIONS,
  CALL_LIMITS,
  type CallStatus,
  type CallSource,
  type CallDirection,
  type CallRecordRow,
  type CallRecordView,
} from './domain/call-record';
export { CALL_TABLES } from './infrastructure/exposed-tables';
export { CALL_RECEIVED, type CallReceivedPayload } from './application/call-received.event';
export { CALLS_OUTBOUND } from './http/call-recording.controller';
export { sniffAudioFormat, type AudioFormat } from './domain/audio-format';
export { recordingKey } from './domain/recording-key';
export { CALLS_SETTINGS } from './calls.settings';
export { CALL_ANALYZED, CALL_FAILED, type ProcessedCall, type ProcessedCallPayload } from './application/pipeline-events';
export { enqueueCallProcessing, processCallJob } from './application/call-processing.job';
export { MAX_MEETING_AUDIO_BYTES, zoomImportJob } from './application/zoom-import';
export { zoomSignature } from './domain/zoom-signature';

export const callsMigrations: MigrationClass[] = [
  CreateCallRecords1763800013001,
  // Zoom meeting recordings (docs/calls.md).
  IndexMeetingRecordings1763800013101,
];

// Call intelligence as the composition sees it (docs/calls.md): call records (served read-only),
// POST /functions/v1/mobile-api/call-recording, which registers them and emits call.received, and the
// pipeline that transcribes and analyses them (a job per record), and Zoom's meeting recordings.
export const callsManifest = defineContext({
  name: 'calls',
  module: CallsModule,
  migrations: callsMigrations,
  tables: [{ table: CALL_TABLES.callRecords }],
  publishes: [CALL_RECEIVED, ZOOM_RECORDING_COMPLETED, CALL_ANALYZED, CALL_FAILED],
  consumes: {},
  settings: CALLS_SETTINGS,
  jobs: { jobs: [processCallJob, zoomImportJob] },
});
