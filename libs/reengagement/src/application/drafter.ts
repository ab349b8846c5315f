import type { RequestContext } from '@engage/shared-kernel';
import type { ContactService } from '@engage/crm';
import type { ConversationService } from '@engage/messaging';
import { CONTEXT_MESSAGES, customerLanguage, draftPrompt, guardDraft, type Language } from '../domain/draft-rules';
import type { SettingsRow } from '../domain/settings';
import { AiCallFailed, type AiTarget, type ChatCompletions } from '../infrastructure/chat-completions';
import type { AiTargets } from './ai-targets';

export type Draft =
  | { ok: true; text: string; provider: 'default' | 'custom'; fallbackReason: string | null }
  | { ok: false; reason: string; provider: 'default' | 'custom' | null; fallbackReason: string | null };

// A nudge's text: the last 10 messages (read through messaging's inbox query), the contact's name
// and the guidelines, sent to the chosen AI. A failing customer key is retried once with the
// default when fallback is on, and the reason is kept; the answer must pass the output guard.
export class Drafter {
  constructor(
    private readonly conversations: ConversationService,
    private readonly contacts: ContactService,
    private readonly targets: AiTargets,
    private readonly ai: ChatCompletions,
  ) {}

  async draft(ctx: RequestContext, settings: SettingsRow, conversationId: string, contactId: string): Promise<Draft> {
    const conversation = await this.conversations.get(ctx, conversationId, 1, CONTEXT_MESSAGES);
    const messages = conversation.messages.map((m) => ({ direction: m.direction, content: m.content }));
    const contact = await this.contacts.get(ctx, contactId).catch(() => null);
    const contactName = contact ? [contact.first_name, contact.last_name].filter(Boolean).join(' ') || null : null;
    const language = customerLanguage(messages);
    const prompt = draftPrompt({ contactName: contactName === 'Unknown Contact' ? null : contactName, guidelines: settings.guidelines, messages, language });
    const { first, fallback } = this.targets.plan(settings);
    if (!first) return { ok: false, reason: 'no AI is configured for this organization', provider: null, fallbackReason: null };
    const attempt = await this.ask(first, prompt, language);
    if (attempt.ok || first.provider !== 'custom' || !attempt.callFailed) {
      return attempt.ok ? { ...attempt, fallbackReason: null } : { ok: false, reason: attempt.reason, provider: first.provider, fallbackReason: null };
    }
    if (!fallback) return { ok: false, reason: `${attempt.reason}; fallback to the default AI is off`, provider: 'custom', fallbackReason: null };
    const retry = await this.ask(fallback, prompt, language);
    const fallbackReason = `custom key failed: ${attempt.reason}`;
    return retry.ok ? { ...retry, fallbackReason } : { ok: false, reason: retry.reason, provider: 'default', fallbackReason };
  }

  private async ask(target: AiTarget, prompt: { role: string; content: string }[], language: Language) {
    let raw: unknown;
    try {
      raw = await this.ai.complete(target, prompt);
    } catch (error) {
      if (error instanceof AiCallFailed) return { ok: false as const, reason: error.message, callFailed: true };
      throw error;
    }
    const guarded = guardDraft(raw, language);
    return guarded.ok
      ? { ok: true as const, text: guarded.text, provider: target.provider }
      : { ok: false as const, reason: guarded.reason, callFailed: false };
  }
}
