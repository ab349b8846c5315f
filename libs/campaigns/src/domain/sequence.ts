import { Conflict, ValidationFailed } from '@engage/shared-kernel';
import { type BroadcastKind, type Content, isPlainObject, parseContent } from './content';
import { delayMs, type StepDelay, type StepTiming } from './step-timing';

export const SEQUENCE_STATUSES = ['draft', 'active', 'paused'] as const;
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];
export const ENROLLMENT_STATUSES = ['active', 'completed', 'exited', 'paused'] as const;
export const EXIT_REASONS = ['reply', 'opt_out', 'conversation_resolved', 'manual', 'unreachable'] as const;

export const MAX_STEPS = 20;
// A step waits at most 30 days after the one before (the range rules' delays offer too).
export const MAX_DELAY_MS = 30 * 86_400_000;
const MAX_NAME = 200;
const DELAY_UNITS = ['days', 'hours', 'minutes', 'seconds'] as const;

export interface SequenceStep extends StepTiming {
  content: Content;
}

export interface ExitOn {
  reply: boolean;
  opt_out: true;
  conversation_resolved: boolean;
}

export const DEFAULT_EXIT_ON: ExitOn = { reply: true, opt_out: true, conversation_resolved: false };

// As stored (sequences.steps, sequence_versions.steps) and answered.
export interface StoredStep {
  delay: StepDelay;
  at_time: string | null;
  content: { text: string; media_url: string | null; media_kind: string | null };
}

const invalid = (path: string, problem: string) => ValidationFailed('campaigns.invalid_sequence', `${path}: ${problem}`, { path });

export function parseName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim().length > MAX_NAME) {
    throw ValidationFailed('campaigns.invalid_name', `name: is required, 1 to ${MAX_NAME} characters`, { path: 'name' });
  }
  return value.trim();
}

function parseDelay(value: unknown, path: string): StepDelay {
  if (value === undefined || value === null) return { days: 0, hours: 0, minutes: 0, seconds: 0 };
  if (!isPlainObject(value)) throw invalid(path, 'must be an object {days?, hours?, minutes?, seconds?}');
  const extra = Object.keys(value).find((key) => !(DELAY_UNITS as readonly string[]).includes(key));
  if (extra !== undefined) throw invalid(`${path}.${extra.slice(0, 64)}`, `unknown unit; allowed: ${DELAY_UNITS.join(', ')}`);
  const delay = { days: 0, hours: 0, minutes: 0, seconds: 0 };
  for (const unit of DELAY_UNITS) {
    const n = value[unit];
    if (n === undefined || n === null) continue;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 1_000_000_000) throw invalid(`${path}.${unit}`, 'must be a whole number, 0 or more');
    delay[unit] = n;
  }
  if (delayMs(delay) > MAX_DELAY_MS) throw invalid(path, 'must be at most 30 days');
  return delay;
}

function parseAtTime(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !/^([01]\d|2[0-3]):[0-5]\d$/.test(value)) throw invalid(path, 'must be a time "HH:MM" (00:00 to 23:59)');
  return value;
}

export function parseSteps(value: unknown, kind: BroadcastKind): SequenceStep[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid('steps', 'must be a non-empty array of steps {delay, at_time?, content}');
  if (value.length > MAX_STEPS) throw invalid('steps', `must have at most ${MAX_STEPS} steps`);
  return value.map((step: unknown, i) => {
    const path = `steps[${i}]`;
    if (!isPlainObject(step)) throw invalid(path, 'must be an object {delay, at_time?, content}');
    const extra = Object.keys(step).find((key) => !['delay', 'at_time', 'content'].includes(key));
    if (extra !== undefined) throw invalid(`${path}.${extra.slice(0, 64)}`, 'unknown key; allowed: delay, at_time, content');
    return {
      delay: parseDelay(step.delay, `${path}.delay`),
      atTime: parseAtTime(step.at_time, `${path}.at_time`),
      content: parseContent(step.content, kind, `${path}.content`),
    };
  });
}

export function parseExitOn(value: unknown): ExitOn {
  if (value === undefined || value === null) return { ...DEFAULT_EXIT_ON };
  if (!isPlainObject(value)) throw invalid('exit_on', 'must be an object {reply?, opt_out?, conversation_resolved?}');
  const extra = Object.keys(value).find((key) => !['reply', 'opt_out', 'conversation_resolved'].includes(key));
  if (extra !== undefined) throw invalid(`exit_on.${extra.slice(0, 64)}`, 'unknown key; allowed: reply, opt_out, conversation_resolved');
  const flag = (key: keyof ExitOn) => {
    const v = value[key];
    if (v === undefined || v === null) return DEFAULT_EXIT_ON[key];
    if (typeof v !== 'boolean') throw invalid(`exit_on.${key}`, 'must be true or false');
    return v;
  };
  // A contact who opted out gets no marketing message: the enrolment always ends.
  if (flag('opt_out') !== true) throw invalid('exit_on.opt_out', 'must be true: a contact who opted out is never sent a step');
  return { reply: flag('reply'), opt_out: true, conversation_resolved: flag('conversation_resolved') };
}

export const storedSteps = (steps: SequenceStep[]): StoredStep[] =>
  steps.map((s) => ({ delay: s.delay, at_time: s.atTime, content: { text: s.content.text, media_url: s.content.mediaUrl, media_kind: s.content.mediaKind } }));

export const timingOf = (step: StoredStep): StepTiming => ({ delay: step.delay, atTime: step.at_time });

export type SequenceAction = 'activate' | 'pause' | 'enroll';

export const SEQUENCE_ALLOWED_FROM: Record<SequenceAction, readonly SequenceStatus[]> = {
  activate: ['draft', 'paused'],
  pause: ['active'],
  enroll: ['active'],
};

export const sequenceTransitionRefused = (action: SequenceAction, status: string) =>
  Conflict(
    'campaigns.invalid_transition',
    `A ${status} sequence cannot ${action === 'enroll' ? 'take enrolments' : action}: ${action} applies to ${SEQUENCE_ALLOWED_FROM[action].join(' or ')} sequences`,
    { status, action },
  );

export interface SequenceRow {
  id: string;
  organization_id: string;
  name: string;
  channel_account_id: string;
  channel_kind: BroadcastKind;
  status: SequenceStatus;
  version: number;
  steps: StoredStep[];
  exit_on: ExitOn;
  activated_at: Date | null;
  paused_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}
