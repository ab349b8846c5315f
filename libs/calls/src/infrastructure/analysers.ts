import type { AnalyserChooser } from '../application/call-processor';
import { localAnalysis } from '../application/call-processor';
import type { AiProviderChoice, AiProviderResolver, Analyser } from '../application/providers';
import { OpenAiAnalyser } from './openai-analyser';

// Where no customer-key resolver is composed (CUSTOMER_AI_RESOLVER, from the re-engagement
// settings), every organization's analysis uses the platform default.
export class PlatformDefaultAiResolver implements AiProviderResolver {
  async providerFor(): Promise<AiProviderChoice> {
    return { kind: 'platform-default' };
  }
}

export const LOCAL_ANALYSER: Analyser = { analyse: async (transcript) => localAnalysis(transcript) };

// The analyser of an organization: its own key when the resolver gives one, else the platform
// default AI (AI_BASE_URL), else the local heuristic analyser.
export class ConfiguredAnalysers implements AnalyserChooser {
  private readonly platformDefault: Analyser;

  constructor(
    private readonly resolver: AiProviderResolver,
    platform: { baseUrl?: string; apiKey?: string; model: string },
  ) {
    const { baseUrl, apiKey, model } = platform;
    this.platformDefault = baseUrl ? new OpenAiAnalyser({ baseUrl, apiKey, model }) : LOCAL_ANALYSER;
  }

  async analyserFor(organizationId: string): Promise<Analyser> {
    const choice = await this.resolver.providerFor(organizationId);
    if (choice.kind === 'customer-key') return new OpenAiAnalyser({ baseUrl: choice.baseUrl, apiKey: choice.apiKey, model: choice.model, fetch: choice.fetch });
    return this.platformDefault;
  }
}
