import { defineContext, type MigrationClass } from '@engage/platform';
import { CallsModule } from './calls.module';
import { ZOOM_RECORDING_COMPLETED } from './calls-events';
import { CALL_RECEIVED } from './application/call-received.event';
import { CALL_TABLES } from './infrastructure/exposed-tables';
import { CreateCallRecords1763800013001 } from './infrastructure/migrations/0001-create-call-records';

export { CallsModule } from './calls.module';
export { ZOOM_RECORDING_COMPLETED, type MeetingRecording, type RecordingPayload } from './calls-events';
export {
  CALL_RECORDS, CALL_STATUSES, CALL_SOURCES, CALL_DIRECTIONS, CALL_LIMITS,
  type CallStatus, type CallSource, type CallDirection, type CallRecordRow, type CallRecordView,
} from './domain/call-record';
export { CALL_TABLES } from './infrastructure/exposed-tables';
export { CALL_RECEIVED, type CallReceivedPayload } from './application/call-received.event';
export { CALLS_OUTBOUND } from './http/call-recording.controller';
export { sniffAudioFormat, type AudioFormat } from './domain/audio-format';
export { recordingKey } from './domain/recording-key';

export const callsMigrations: MigrationClass[] = [CreateCallRecords1763800013001];

// Call intelligence as the composition sees it (docs/calls.md): call records (served read-only) and
// POST /functions/v1/mobile-api/call-recording, which registers them and emits call.received.
export const callsManifest = defineContext({
  name: 'calls',
  module: CallsModule,
  migrations: callsMigrations,
  tables: [{ table: CALL_TABLES.callRecords }],
  publishes: [CALL_RECEIVED, ZOOM_RECORDING_COMPLETED],
  consumes: {},
});
