// An organization's own AI key for every AI feature (AI re-engagement's settings, key_scope `all`),
// asked for by the AI features of other contexts (call analysis) through this token. Absent (the
// context not composed), they use the platform's AI. `fetch` reaches a customer-given address
// through the platform's SSRF-safe outbound client.
export type CustomerAiChoice = { kind: 'platform-default' } | { kind: 'customer-key'; baseUrl: string; apiKey: string; model: string; fetch?: typeof fetch };

export interface CustomerAiResolver {
  providerFor(organizationId: string): Promise<CustomerAiChoice>;
}

export const CUSTOMER_AI_RESOLVER = Symbol('CUSTOMER_AI_RESOLVER');
