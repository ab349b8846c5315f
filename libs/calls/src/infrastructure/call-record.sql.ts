import { namedColumns } from '@engage/platform';
import { CALL_RECORDS } from '../domain/call-record';

// A registered call: every value by column name (call_timestamp falls back to now()).
export const CALL_INSERT = namedColumns(CALL_RECORDS, [
  'id',
  'source',
  'contact_id',
  'customer_phone',
  'agent_identifier',
  'agent_user_id',
  'duration_seconds',
  'call_timestamp',
  'direction',
  'notes',
  'recording_url',
  'recording_key',
  'recording_content_type',
  'recording_bytes',
]);

export const INSERT_CALL_RECORD = `
  INSERT INTO call_records (organization_id, ${CALL_INSERT.list})
  SELECT app_org_id(), ${CALL_INSERT.names.map((name, i) => (name === 'call_timestamp' ? `COALESCE($${i + 1}::timestamptz, now())` : `$${i + 1}`)).join(', ')}
  RETURNING *`;
