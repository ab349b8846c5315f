import { toView } from '@engage/shared-kernel';
import { type NudgeRow, type NudgeView, REENGAGEMENT_NUDGES } from '../domain/nudge';

export const toNudgeView = (row: NudgeRow): NudgeView => toView(REENGAGEMENT_NUDGES, row);
