import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { type Database, type Tx, type ViolationMap } from '@engage/platform';
import { NOTE_CREATED, NOTE_UPDATED, noteEvent, TASK_COMPLETED, TASK_CREATED, TASK_UPDATED, taskEvent } from './crm-events';
import { assertLinked, type NoteFields, parseNewNote, parseNewTask, parseNoteFields, parseTaskFields, type TaskFields } from '../domain/activity-records';
import {
  INSERT_NOTE,
  INSERT_TASK,
  NOTE_FOR_UPDATE,
  NOTE_WRITE,
  TASK_FOR_UPDATE,
  TASK_WRITE,
  UPDATE_NOTE,
  UPDATE_TASK,
} from '../infrastructure/activity-records.sql';

export type TaskView = TaskFields & {
  id: string;
  organization_id: string;
  done_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
};
export type NoteView = NoteFields & { id: string; organization_id: string; author_id: string | null; created_at: string; updated_at: string };

// Tasks and notes on contacts, companies and deals. Writes arrive through the data API
// (/rest/v1/tasks, /rest/v1/notes and the record proxy) and emit task.* and note.* events.
export class ActivityRecordService {
  constructor(private readonly db: Database) {}

  createTask(ctx: RequestContext, input: Record<string, unknown>): Promise<TaskView> {
    return this.db.inTenant(ctx, (tx) => this.createTaskIn(tx, ctx, input));
  }

  createNote(ctx: RequestContext, input: Record<string, unknown>): Promise<NoteView> {
    return this.db.inTenant(ctx, (tx) => this.createNoteIn(tx, ctx, input));
  }

  async createTaskIn(tx: Tx, ctx: RequestContext, input: Record<string, unknown>): Promise<TaskView> {
    const t = parseNewTask(input);
    const [row] = await tx.query<TaskView>(INSERT_TASK, [...TASK_WRITE.values(t), ctx.userId], { violations: TASK_LINKS });
    const task = isoTask(row);
    const events = [taskEvent(TASK_CREATED, ctx, task)];
    if (task.done) events.push(taskEvent(TASK_COMPLETED, ctx, task));
    await tx.emit(events);
    return task;
  }

  async updateTaskIn(tx: Tx, ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<TaskView> {
    assertId('task', id);
    const changes = parseTaskFields(input);
    const [current] = await tx.query<TaskView>(TASK_FOR_UPDATE, [id]);
    if (!current) throw NotFound('task', id);
    const next = { ...current, ...changes };
    assertLinked('task', next);
    const [row] = await tx.query<TaskView>(UPDATE_TASK, [id, ...TASK_WRITE.values(next)], { violations: TASK_LINKS });
    const task = isoTask(row);
    const events = [taskEvent(TASK_UPDATED, ctx, task)];
    if (task.done && !current.done) events.push(taskEvent(TASK_COMPLETED, ctx, task));
    await tx.emit(events);
    return task;
  }

  async removeTaskIn(tx: Tx, _ctx: RequestContext, id: string): Promise<void> {
    assertId('task', id);
    if ((await tx.execute('DELETE FROM tasks WHERE id = $1', [id])) === 0) throw NotFound('task', id);
  }

  async createNoteIn(tx: Tx, ctx: RequestContext, input: Record<string, unknown>): Promise<NoteView> {
    const n = parseNewNote(input);
    const [row] = await tx.query<NoteView>(INSERT_NOTE, [...NOTE_WRITE.values(n), ctx.userId], { violations: NOTE_LINKS });
    const note = iso(row);
    await tx.emit([noteEvent(NOTE_CREATED, ctx, note)]);
    return note;
  }

  async updateNoteIn(tx: Tx, ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<NoteView> {
    assertId('note', id);
    const changes = parseNoteFields(input);
    const [current] = await tx.query<NoteView>(NOTE_FOR_UPDATE, [id]);
    if (!current) throw NotFound('note', id);
    const next = { ...current, ...changes };
    assertLinked('note', next);
    const [row] = await tx.query<NoteView>(UPDATE_NOTE, [id, ...NOTE_WRITE.values(next)], { violations: NOTE_LINKS });
    const note = iso(row);
    await tx.emit([noteEvent(NOTE_UPDATED, ctx, note)]);
    return note;
  }

  async removeNoteIn(tx: Tx, _ctx: RequestContext, id: string): Promise<void> {
    assertId('note', id);
    if ((await tx.execute('DELETE FROM notes WHERE id = $1', [id])) === 0) throw NotFound('note', id);
  }
}

function assertId(entity: string, id: string): void {
  if (!isUuid(id)) throw new DomainError('validation', `${entity}.invalid_id`, `${entity} id must be a UUID`);
}

// The composite keys name the link that is unknown or belongs to another organization.
function recordLinks(table: 'tasks' | 'notes'): ViolationMap {
  return {
    [`${table}_contact_fkey`]: () => NotFound('contact'),
    [`${table}_company_fkey`]: () => NotFound('company'),
    [`${table}_deal_fkey`]: () => NotFound('deal'),
  };
}
const TASK_LINKS: ViolationMap = {
  ...recordLinks('tasks'),
  tasks_assignee_fkey: () => new DomainError('validation', 'task.invalid_assignee', 'assignee_id is not a member of this organization'),
};
const NOTE_LINKS: ViolationMap = {
  ...recordLinks('notes'),
  notes_author_fkey: () => new DomainError('validation', 'note.invalid_author', 'the author is not a member of this organization'),
};

const toIso = (value: unknown): string => new Date(value as string).toISOString();

function iso<T extends { created_at: string; updated_at: string }>(row: T): T {
  return { ...row, created_at: toIso(row.created_at), updated_at: toIso(row.updated_at) };
}

function isoTask(row: TaskView): TaskView {
  return { ...iso(row), due_at: row.due_at === null ? null : toIso(row.due_at), done_at: row.done_at === null ? null : toIso(row.done_at) };
}
