import { changePayload } from './change-message';
import { parseChangeNotice } from './change-notice';

const ORG = '3f1c2a4e-0000-4000-8000-00000000000a';
const ID = '3f1c2a4e-0000-4000-8000-00000000000b';
const COLUMNS = new Map([
  ['id', 'uuid'],
  ['content', 'text'],
  ['media', 'jsonb'],
  ['unread_count', 'int'],
]);

describe('change payloads', () => {
  it("should shape an INSERT as Supabase Realtime's postgres_changes data", () => {
    const payload = changePayload(
      { table: 'messages', type: 'INSERT', at: '2026-11-28T03:04:49.123456+00:00' },
      { id: ID, content: 'hi', media: [] },
      COLUMNS,
      undefined,
      [3],
    );
    expect(payload).toEqual({
      ids: [3],
      data: {
        schema: 'public',
        table: 'messages',
        commit_timestamp: '2026-11-28T03:04:49.123Z',
        type: 'INSERT',
        columns: [
          { name: 'id', type: 'uuid' },
          { name: 'content', type: 'text' },
          { name: 'media', type: 'jsonb' },
          { name: 'unread_count', type: 'int4' },
        ],
        record: { id: ID, content: 'hi', media: [] },
        errors: null,
      },
    });
  });

  it('should give UPDATE and DELETE the old primary key, and keep only selected columns', () => {
    const update = changePayload({ table: 'messages', type: 'UPDATE', at: 'x' }, { id: ID, content: 'hi' }, COLUMNS, ['content'], [1, 2]);
    expect(update.data).toMatchObject({
      record: { content: 'hi' },
      old_record: { id: ID },
      columns: [{ name: 'content', type: 'text' }],
      commit_timestamp: 'x',
    });
    const removed = changePayload({ table: 'messages', type: 'DELETE', at: 'x' }, { id: ID }, COLUMNS, undefined, [1]);
    expect(removed.data.record).toBeUndefined();
    expect(removed.data.old_record).toEqual({ id: ID });
  });
});

describe('change notices', () => {
  it('should read what the trigger sends and ignore anything else on the channel', () => {
    const notice = { table: 'messages', type: 'INSERT', organization_id: ORG, ids: [ID], at: '2026-11-28T03:04:49+00:00' };
    expect(parseChangeNotice(JSON.stringify(notice))).toEqual({ table: 'messages', type: 'INSERT', organizationId: ORG, ids: [ID], at: notice.at });
    for (const other of [
      undefined,
      '',
      'nope',
      '{}',
      JSON.stringify({ ...notice, type: 'TRUNCATE' }),
      JSON.stringify({ ...notice, ids: ['1'] }),
      JSON.stringify({ ...notice, organization_id: 'x' }),
    ]) {
      expect(parseChangeNotice(other)).toBeUndefined();
    }
  });
});
