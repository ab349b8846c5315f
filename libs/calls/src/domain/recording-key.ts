import { DomainError } from '@engage/shared-kernel';

// A suite id is one segment of the storage key: letters, digits, '_' and '-'.
const SUITE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

// Where an uploaded recording lives on the CDN: `<suite_id>/<yyyy>/<mm>/<call_record_id>.<ext>`,
// year and month of the upload (UTC).
export function recordingKey(suiteId: string, at: Date, callRecordId: string, ext: string): string {
  if (!SUITE_ID.test(suiteId)) {
    throw new DomainError('validation', 'call.invalid_suite_id', 'the organization’s suite id must be 1 to 64 letters, digits, "_" or "-"');
  }
  const month = String(at.getUTCMonth() + 1).padStart(2, '0');
  return `${suiteId}/${at.getUTCFullYear()}/${month}/${callRecordId}.${ext}`;
}
