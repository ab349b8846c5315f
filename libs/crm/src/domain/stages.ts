import { DomainError } from '@engage/shared-kernel';

export interface StageDefinition {
  key: string;
  name: string;
  color: string;
  default_probability: number | null;
  outcome: 'open' | 'won' | 'lost';
}

// The default pipeline of every new organization (§2).
export const DEFAULT_STAGES: StageDefinition[] = [
  { key: 'LEAD', name: 'Deal', color: '#64748b', default_probability: 10, outcome: 'open' },
  { key: 'QUALIFIED', name: 'Qualified', color: '#0ea5e9', default_probability: 25, outcome: 'open' },
  { key: 'PROPOSAL', name: 'Proposal', color: '#6366f1', default_probability: 50, outcome: 'open' },
  { key: 'NEGOTIATION', name: 'Negotiation', color: '#f59e0b', default_probability: 75, outcome: 'open' },
  { key: 'CLOSED_WON', name: 'Closed Won', color: '#22c55e', default_probability: 100, outcome: 'won' },
  { key: 'CLOSED_LOST', name: 'Closed Lost', color: '#ef4444', default_probability: 0, outcome: 'lost' },
];

// Other words requests use for the default stages (§2 shows both cases and PROSPECT).
const ALIASES: Record<string, string> = { PROSPECT: 'LEAD', DEAL: 'LEAD', NEW: 'LEAD', WON: 'CLOSED_WON', LOST: 'CLOSED_LOST' };

const canonical = (value: string) =>
  value
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');

// A stage value from a request (key in any case, the stage's name, or an alias) -> the pipeline's stage.
export function resolveStage<S extends { key: string; name: string }>(value: unknown, stages: S[]): S {
  if (typeof value !== 'string' || value.trim() === '') throw new DomainError('validation', 'deal.invalid_stage', 'stage must be a non-empty string');
  const wanted = canonical(value);
  const found = stages.find((s) => s.key === wanted) ?? stages.find((s) => canonical(s.name) === wanted) ?? stages.find((s) => s.key === ALIASES[wanted]);
  if (!found) {
    throw new DomainError('validation', 'deal.invalid_stage', `unknown stage "${value.slice(0, 50)}"; valid stages: ${stages.map((s) => s.key).join(', ')}`, {
      valid: stages.map((s) => s.key),
    });
  }
  return found;
}

// Probability after a move: 100 on a won stage, 0 on a lost one, else the stage default if set.
export function probabilityAfterMove(stage: { outcome: string; default_probability: number | null }, current: number): number {
  if (stage.outcome === 'won') return 100;
  if (stage.outcome === 'lost') return 0;
  return stage.default_probability ?? current;
}

export type OwnerChangeReason = 'Initial assignment' | 'Reassigned' | 'Unassigned' | 'Auto-reassigned';

export function ownerChangeReason(previous: string | null, next: string | null, hadOwnerBefore: boolean, automatic: boolean): OwnerChangeReason | null {
  if (previous === next) return null;
  if (automatic) return 'Auto-reassigned';
  if (next === null) return 'Unassigned';
  return hadOwnerBefore ? 'Reassigned' : 'Initial assignment';
}
