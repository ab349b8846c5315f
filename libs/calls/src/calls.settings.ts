import { enumSetting, stringSetting, urlSetting } from '@engage/platform';

const MODEL = { pattern: /^[A-Za-z0-9._:/-]{1,200}$/, patternText: 'a model name (letters, digits, . _ : / -)' };

// The providers of call intelligence (its manifest's `settings`, OPERATIONS.md). Both speak the
// OpenAI-compatible HTTP API; each base URL is the API root, e.g. https://api.openai.com/v1.
export const CALLS_SETTINGS = {
  AI_BASE_URL: urlSetting({
    group: 'calls',
    protocols: ['http:', 'https:'],
    description: 'the platform default AI, an OpenAI-compatible chat-completions API root; unset: the local heuristic analyser (sentiment and keywords only)',
  }),
  AI_API_KEY: stringSetting({ group: 'calls', sensitive: true, maxLength: 4096, description: 'bearer key of AI_BASE_URL' }),
  AI_MODEL: stringSetting({ group: 'calls', default: 'gpt-4o-mini', ...MODEL, description: 'chat model used for call analysis' }),
  TRANSCRIBE_BASE_URL: urlSetting({
    group: 'calls',
    protocols: ['http:', 'https:'],
    description: 'an OpenAI-compatible /audio/transcriptions API root; unset: recordings are kept with status transcription_unavailable',
  }),
  TRANSCRIBE_API_KEY: stringSetting({ group: 'calls', sensitive: true, maxLength: 4096, description: 'bearer key of TRANSCRIBE_BASE_URL' }),
  TRANSCRIBE_MODEL: stringSetting({ group: 'calls', default: 'whisper-1', ...MODEL, description: 'speech-to-text model' }),
  TRANSCRIBE_LANGUAGE: enumSetting({
    group: 'calls',
    default: 'auto',
    values: ['auto', 'ar', 'en'],
    description: 'language hint sent with each recording (auto: the model detects Arabic, English or both)',
  }),
};
