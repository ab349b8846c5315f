import { DomainError, isUuid } from '@engage/shared-kernel';

// Tasks and notes hang off a contact, a company and/or a deal: at least one link, several allowed.
export interface RecordLinks {
  contact_id: string | null;
  company_id: string | null;
  deal_id: string | null;
}

export interface TaskFields extends RecordLinks {
  title: string;
  description: string;
  due_at: string | null;
  assignee_id: string | null;
  done: boolean;
}

export interface NoteFields extends RecordLinks {
  body: string;
}

export const TASK_TITLE_MAX = 200;
export const TASK_DESCRIPTION_MAX = 5000;
export const NOTE_BODY_MAX = 10_000;

const LINKS = ['contact_id', 'company_id', 'deal_id'] as const;
// Columns the server sets; a client echoing them back (a read-modify-write) is not an error.
const SERVER_SET = ['id', 'organization_id', 'created_at', 'updated_at'];
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const invalid = (entity: string, field: string, rule: string) => new DomainError('validation', `${entity}.invalid_field`, `${field} ${rule}`, { field });

function refuseUnknown(entity: string, input: Record<string, unknown>, allowed: readonly string[], serverSet: readonly string[]): void {
  const unknown = Object.keys(input).filter((key) => !allowed.includes(key) && !serverSet.includes(key));
  if (unknown.length > 0) throw new DomainError('validation', `${entity}.unknown_field`, `unknown ${entity} field ${unknown.join(', ')}`, { fields: unknown });
}

function text(entity: string, input: Record<string, unknown>, field: string, max: number, required: boolean): string {
  const value = input[field];
  if (typeof value !== 'string') throw invalid(entity, field, 'must be a string');
  if (value.length > max) throw invalid(entity, field, `must be at most ${max} characters`);
  const trimmed = value.trim();
  if (required && trimmed === '') throw invalid(entity, field, 'must not be empty');
  return trimmed;
}

function uuidOrNull(entity: string, value: unknown, field: string): string | null {
  if (value === null) return null;
  if (!isUuid(value)) throw invalid(entity, field, 'must be a UUID or null');
  return value.toLowerCase();
}

function parseLinks(entity: string, input: Record<string, unknown>): Partial<RecordLinks> {
  const out: Partial<RecordLinks> = {};
  for (const link of LINKS) if (link in input) out[link] = uuidOrNull(entity, input[link], link);
  return out;
}

export function assertLinked(entity: string, links: RecordLinks): void {
  if (LINKS.every((link) => links[link] === null)) {
    throw new DomainError('validation', `${entity}.unlinked`, `a ${entity} needs at least one of contact_id, company_id, deal_id`, { fields: [...LINKS] });
  }
}

export function parseTaskFields(input: Record<string, unknown>): Partial<TaskFields> {
  refuseUnknown('task', input, ['title', 'description', 'due_at', 'assignee_id', 'done', ...LINKS], [...SERVER_SET, 'done_at', 'created_by']);
  const out: Partial<TaskFields> = parseLinks('task', input);
  if ('title' in input) out.title = text('task', input, 'title', TASK_TITLE_MAX, true);
  if ('description' in input) out.description = text('task', input, 'description', TASK_DESCRIPTION_MAX, false);
  if ('assignee_id' in input) out.assignee_id = uuidOrNull('task', input.assignee_id, 'assignee_id');
  if ('due_at' in input) {
    const value = input.due_at;
    if (value !== null && (typeof value !== 'string' || !ISO_TIMESTAMP.test(value) || Number.isNaN(Date.parse(value)))) {
      throw invalid('task', 'due_at', 'must be an ISO 8601 date or timestamp, or null');
    }
    out.due_at = value === null ? null : new Date(value).toISOString();
  }
  if ('done' in input) {
    if (typeof input.done !== 'boolean') throw invalid('task', 'done', 'must be true or false');
    out.done = input.done;
  }
  return out;
}

export function parseNewTask(input: Record<string, unknown>): TaskFields {
  const fields = parseTaskFields(input);
  if (fields.title === undefined) throw invalid('task', 'title', 'is required');
  const task: TaskFields = {
    description: '',
    due_at: null,
    assignee_id: null,
    done: false,
    contact_id: null,
    company_id: null,
    deal_id: null,
    ...fields,
    title: fields.title,
  };
  assertLinked('task', task);
  return task;
}

export function parseNoteFields(input: Record<string, unknown>): Partial<NoteFields> {
  refuseUnknown('note', input, ['body', ...LINKS], [...SERVER_SET, 'author_id']);
  const out: Partial<NoteFields> = parseLinks('note', input);
  if ('body' in input) out.body = text('note', input, 'body', NOTE_BODY_MAX, true);
  return out;
}

export function parseNewNote(input: Record<string, unknown>): NoteFields {
  const fields = parseNoteFields(input);
  if (fields.body === undefined) throw invalid('note', 'body', 'is required');
  const note: NoteFields = { contact_id: null, company_id: null, deal_id: null, ...fields, body: fields.body };
  assertLinked('note', note);
  return note;
}
