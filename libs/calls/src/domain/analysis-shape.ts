// The structured answer asked of an AI model for one call, and its check: the model is told the
// JSON schema, and what comes back is validated here before anything is stored.

export interface AiCallAnalysis {
  sentiment: 'positive' | 'neutral' | 'negative';
  keywords: string[];
  action_items: string[];
  summary: string;
}

const stringList = (maxItems: number) => ({ type: 'array', items: { type: 'string', maxLength: 300 }, maxItems });

export const ANALYSIS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['sentiment', 'keywords', 'action_items', 'summary'],
  properties: {
    sentiment: { type: 'string', enum: ['positive', 'neutral', 'negative'] },
    keywords: stringList(20),
    action_items: stringList(20),
    summary: { type: 'string', maxLength: 2000 },
  },
} as const;

const isStringList = (value: unknown, max: number): value is string[] =>
  Array.isArray(value) && value.length <= max && value.every((item) => typeof item === 'string' && item.length <= 300);

// The analysis, or why the text is not one.
export function parseAnalysis(content: unknown): { ok: true; value: AiCallAnalysis } | { ok: false; reason: string } {
  if (typeof content !== 'string') return { ok: false, reason: 'the answer has no message content' };
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return { ok: false, reason: 'the answer is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the answer is not a JSON object' };
  const v = value as Record<string, unknown>;
  const extra = Object.keys(v).filter((key) => !(key in ANALYSIS_SCHEMA.properties));
  if (extra.length > 0) return { ok: false, reason: `unexpected fields: ${extra.slice(0, 5).join(', ')}` };
  if (!['positive', 'neutral', 'negative'].includes(v.sentiment as string)) return { ok: false, reason: 'sentiment must be positive, neutral or negative' };
  if (!isStringList(v.keywords, 20)) return { ok: false, reason: 'keywords must be a list of at most 20 strings' };
  if (!isStringList(v.action_items, 20)) return { ok: false, reason: 'action_items must be a list of at most 20 strings' };
  if (typeof v.summary !== 'string' || v.summary.length > 2000) return { ok: false, reason: 'summary must be a string of at most 2000 characters' };
  return { ok: true, value: v as unknown as AiCallAnalysis };
}
