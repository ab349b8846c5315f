import { DomainError } from '@engage/shared-kernel';
import { parseNewNote, parseNewTask, parseTaskFields } from './activity-records';

function caughtSync(work: () => unknown): DomainError {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

const CONTACT = '0b7d7b4e-3a6f-4c1e-9d3e-1f2a3b4c5d6e';

describe('task and note fields', () => {
  it('should default a new task and normalise its due date to UTC', () => {
    expect(parseNewTask({ title: ' Call ', contact_id: CONTACT.toUpperCase(), due_at: '2030-01-02T11:00:00+02:00' })).toEqual({
      title: 'Call',
      description: '',
      due_at: '2030-01-02T09:00:00.000Z',
      assignee_id: null,
      done: false,
      contact_id: CONTACT,
      company_id: null,
      deal_id: null,
    });
  });

  it('should accept a plain date and null as due_at, and ignore server-set columns echoed back', () => {
    expect(parseTaskFields({ due_at: '2030-01-02', id: CONTACT, done_at: null, created_by: null })).toEqual({ due_at: '2030-01-02T00:00:00.000Z' });
    expect(parseTaskFields({ due_at: null })).toEqual({ due_at: null });
  });

  it('should refuse impossible dates, missing links and unknown fields with their own codes', () => {
    expect(caughtSync(() => parseTaskFields({ due_at: '2030-13-45' })).code).toBe('task.invalid_field');
    expect(caughtSync(() => parseNewTask({ title: 'T', contact_id: null })).code).toBe('task.unlinked');
    expect(caughtSync(() => parseNewNote({ body: 'B', author_id: CONTACT })).code).toBe('note.unlinked');
    expect(caughtSync(() => parseNewNote({ body: 'B', contact_id: CONTACT, title: 'x' })).code).toBe('note.unknown_field');
  });
});
