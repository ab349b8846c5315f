import { defineContext } from '@engage/platform';
import { CallsModule } from './calls.module';
import { ZOOM_RECORDING_COMPLETED } from './calls-events';

export { CallsModule } from './calls.module';
export { ZOOM_RECORDING_COMPLETED, type MeetingRecording, type RecordingPayload } from './calls-events';

// Created with one declaration only: the §6 kind it will produce, marked as not produced yet.
export const callsManifest = defineContext({
  name: 'calls', module: CallsModule, migrations: [], tables: [], publishes: [ZOOM_RECORDING_COMPLETED], consumes: {},
});
