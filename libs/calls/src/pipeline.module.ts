import { Module } from '@nestjs/common';
import { CUSTOMER_AI_RESOLVER, type CustomerAiResolver } from '@engage/shared-kernel';
import { CONFIG, type Config, createOutboundClient, Database, OBJECT_STORAGE, type ObjectStorage, settingsOf } from '@engage/platform';
import { CALLS_SETTINGS } from './calls.settings';
import { CallProcessor } from './application/call-processor';
import { CALL_PROCESSING_ATTEMPTS } from './application/call-processing.job';
import { AI_PROVIDER_RESOLVER, type AiProviderResolver, type Transcriber } from './application/providers';
import { ConfiguredAnalysers, PlatformDefaultAiResolver } from './infrastructure/analysers';
import { OpenAiTranscriber } from './infrastructure/openai-transcriber';
import { StoredRecordingReader } from './infrastructure/recording-reader';

// null when TRANSCRIBE_BASE_URL is unset: records are then marked transcription_unavailable.
export function transcriberOf(config: Config): Transcriber | null {
  const s = settingsOf(config, CALLS_SETTINGS);
  return s.TRANSCRIBE_BASE_URL ? new OpenAiTranscriber({ baseUrl: s.TRANSCRIBE_BASE_URL, apiKey: s.TRANSCRIBE_API_KEY, model: s.TRANSCRIBE_MODEL }) : null;
}

// The processing pipeline of call records: its job handler and the ports it uses (docs/calls.md).
@Module({
  providers: [
    // The organization's own key when a context provides the resolver (AI re-engagement, key_scope all).
    {
      provide: AI_PROVIDER_RESOLVER,
      inject: [{ token: CUSTOMER_AI_RESOLVER, optional: true }],
      useFactory: (customer?: CustomerAiResolver) => customer ?? new PlatformDefaultAiResolver(),
    },
    {
      provide: CallProcessor,
      inject: [Database, CONFIG, AI_PROVIDER_RESOLVER, OBJECT_STORAGE],
      useFactory: (db: Database, config: Config, resolver: AiProviderResolver, storage: ObjectStorage) => {
        const s = settingsOf(config, CALLS_SETTINGS);
        const analysers = new ConfiguredAnalysers(resolver, { baseUrl: s.AI_BASE_URL, apiKey: s.AI_API_KEY, model: s.AI_MODEL });
        const recordings = new StoredRecordingReader(storage, createOutboundClient(config, { keepAlive: false }));
        const transcriber = transcriberOf(config);
        return new CallProcessor({ db, transcriber, analysers, recordings, language: s.TRANSCRIBE_LANGUAGE, maxAttempts: CALL_PROCESSING_ATTEMPTS });
      },
    },
  ],
  exports: [CallProcessor, AI_PROVIDER_RESOLVER],
})
export class CallPipelineModule {}
