import type { MigrationInterface, QueryRunner } from 'typeorm';

// A Zoom delivery is matched to a meeting already imported by its uuid (Zoom delivers again when
// it gets no quick answer): an index so that lookup does not read every call record.
export class IndexMeetingRecordings1763800013101 implements MigrationInterface {
  name = 'IndexMeetingRecordings1763800013101';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX call_records_meeting_uuid_idx ON call_records (organization_id, (meeting->>'meeting_uuid')) WHERE source = 'meeting'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX call_records_meeting_uuid_idx`);
  }
}
