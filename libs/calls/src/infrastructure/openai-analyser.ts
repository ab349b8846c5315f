import { ANALYSIS_SCHEMA, parseAnalysis } from '../domain/analysis-shape';
import { type Analyser, type CallAnalysis, ProviderError } from '../application/providers';
import { providerRequest } from './provider-http';

// The longest transcript sent (characters); a longer one is cut, which the prompt says.
const MAX_TRANSCRIPT_CHARS = 100_000;

const INSTRUCTIONS = [
  'You analyse transcripts of sales and support phone calls, in Arabic, English or both.',
  "Answer with JSON only, following the schema: the customer's overall sentiment, up to 20 keywords (in the language spoken),",
  'the action items agreed or requested (each one short sentence), and a summary of at most five sentences in the language spoken.',
].join(' ');

export interface OpenAiAnalyserOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

// An OpenAI-compatible chat-completions API asked for a JSON-schema'd answer (response_format
// json_schema, strict). An answer that does not match the schema is asked for once more; a second
// bad answer fails the analysis (not retried: the same input would likely fail again).
export class OpenAiAnalyser implements Analyser {
  constructor(private readonly options: OpenAiAnalyserOptions) {}

  async analyse(transcript: string): Promise<CallAnalysis> {
    let reason = '';
    for (let attempt = 1; attempt <= 2; attempt++) {
      const parsed = parseAnalysis(await this.complete(transcript));
      if (parsed.ok) return { analyser: 'ai', model: this.options.model, ...parsed.value };
      reason = parsed.reason;
    }
    throw new ProviderError(`the AI answered twice with malformed analysis (${reason})`, false);
  }

  private async complete(transcript: string): Promise<unknown> {
    const cut = transcript.length > MAX_TRANSCRIPT_CHARS;
    const body = JSON.stringify({
      model: this.options.model,
      temperature: 0,
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: `Transcript${cut ? ' (cut to its first 100,000 characters)' : ''}:\n${transcript.slice(0, MAX_TRANSCRIPT_CHARS)}` },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'call_analysis', strict: true, schema: ANALYSIS_SCHEMA } },
    });
    const answer = await providerRequest(`${this.options.baseUrl}/chat/completions`, {
      apiKey: this.options.apiKey,
      body,
      timeoutMs: this.options.timeoutMs ?? 120_000,
      what: 'AI analysis',
      fetch: this.options.fetch,
    });
    const choice = (answer as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] } | null)?.choices?.[0];
    return choice?.message?.content;
  }
}
