import type { CustomerAiChoice } from '@engage/shared-kernel';

// The ports of call intelligence: speech to text, and analysis of the text. Adapters live in
// infrastructure/; the pipeline (call-processing.job.ts) sees only these.

export type LanguageHint = 'ar' | 'en' | 'auto';

// A provider that failed. `retryable`: worth another attempt later (a network error, 429, 5xx);
// otherwise the call record fails with the message as its reason.
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

// A recording as a local file: a temporary copy, removed by whoever made it once done, so a recording
// is never held in memory whole.
export interface Recording {
  path: string;
  bytes: number;
  filename: string;
  contentType: string;
}

export interface Transcription {
  text: string;
  // How many requests the recording took (pieces within the provider's size limit).
  pieces: number;
  model: string;
}

export interface Transcriber {
  transcribe(recording: Recording, language: LanguageHint): Promise<Transcription>;
}

export type Sentiment = 'positive' | 'neutral' | 'negative';

export interface CallAnalysis {
  // Who produced it: 'ai' (a chat-completions model, named in `model`) or 'local-heuristic' (no AI
  // configured: sentiment and keywords only, action_items empty and summary null).
  analyser: 'ai' | 'local-heuristic';
  model: string | null;
  sentiment: Sentiment;
  keywords: string[];
  action_items: string[];
  summary: string | null;
}

export interface Analyser {
  analyse(transcript: string): Promise<CallAnalysis>;
}

// Which AI an organization's analysis uses. Until the re-engagement settings (a customer key with
// the scope "all AI features") exist, every organization gets the platform default.
export type AiProviderChoice = CustomerAiChoice;

export interface AiProviderResolver {
  providerFor(organizationId: string): Promise<AiProviderChoice>;
}

export const AI_PROVIDER_RESOLVER = Symbol('AI_PROVIDER_RESOLVER');
