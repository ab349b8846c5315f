import { json, viewSchema } from '@engage/platform';
import { ENROLLMENT_STATUSES, SEQUENCE_STATUSES } from '../domain/sequence';
import { SEQUENCE_ENROLLMENTS, SEQUENCES } from '../domain/sequence-tables';

const { integer, arrayOf, object, oneOfValues, extend } = json;

const ENROLLMENT_COUNTS = object(Object.fromEntries(ENROLLMENT_STATUSES.map((s) => [s, integer])));

export const SEQUENCE = extend(viewSchema(SEQUENCES), { status: oneOfValues(SEQUENCE_STATUSES), enrollments: ENROLLMENT_COUNTS });
export const SEQUENCE_PAGE = object({ sequences: arrayOf(SEQUENCE), total: integer, limit: integer, offset: integer });
export const ENROLLMENT_ANSWER = object({ enrolled: integer, already_enrolled: integer, skipped: object({ no_opt_in: integer, no_phone: integer }) });
export const ENROLLMENT = viewSchema(SEQUENCE_ENROLLMENTS);
