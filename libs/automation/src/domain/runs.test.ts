import { admit, causeOf, MAX_DEPTH, nextInRotation, runStatus, settledStatus } from './runs';

const rule = '11111111-1111-4111-8111-111111111111';
const other = '22222222-2222-4222-8222-222222222222';
const run = '33333333-3333-4333-8333-333333333333';

describe('the loop guard', () => {
  it('should run a rule on an event of a person, a provider or a timer at depth 0', () => {
    expect(admit(rule, undefined)).toEqual({ kind: 'run', depth: 0 });
  });

  it('should ignore an event the rule’s own action directly caused, whatever its depth', () => {
    expect(admit(rule, { rule_id: rule, run_id: run, depth: 1 })).toEqual({ kind: 'ignore' });
  });

  it('should run another rule on a caused event at the cause’s depth, and skip it at depth 3', () => {
    expect(admit(rule, { rule_id: other, run_id: run, depth: 2 })).toEqual({ kind: 'run', depth: 2 });
    expect(admit(rule, { rule_id: other, run_id: run, depth: MAX_DEPTH })).toEqual({ kind: 'loop_guard', depth: 3 });
  });

  it('should give the events of a run’s actions the run as their cause, one level deeper', () => {
    expect(causeOf(rule, run, 2)).toEqual({ rule_id: rule, run_id: run, depth: 3 });
  });
});

describe('a run’s status', () => {
  it('should be succeeded when no action failed (skipped ones count as neither)', () => {
    expect(
      runStatus([
        { type: 'add_note', status: 'succeeded' },
        { type: 'add_contact_tags', status: 'skipped' },
      ]),
    ).toBe('succeeded');
  });

  it('should be partially_failed when some failed and some succeeded, failed when none succeeded', () => {
    const failed = { type: 'send_webhook' as const, status: 'failed' as const, error: 'HTTP 500' };
    expect(runStatus([failed, { type: 'add_note', status: 'succeeded' }])).toBe('partially_failed');
    expect(runStatus([failed, { type: 'add_note', status: 'skipped' }])).toBe('failed');
  });

  it('should be delivering while a webhook is pending, then its outcome', () => {
    const note = { type: 'add_note' as const, status: 'succeeded' as const };
    expect(settledStatus([{ type: 'send_webhook', status: 'pending' }, note])).toBe('delivering');
    expect(settledStatus([{ type: 'send_webhook', status: 'failed', error: 'HTTP 500 (3 attempts)' }, note])).toBe('partially_failed');
    expect(settledStatus([{ type: 'send_webhook', status: 'succeeded' }, note])).toBe('succeeded');
  });

  it('should count a wait as neither: failed when the only action after it failed', () => {
    const failed = { type: 'send_webhook' as const, status: 'failed' as const, error: 'HTTP 500' };
    expect(runStatus([{ type: 'wait', status: 'succeeded', result: { resume_at: 'x' } }, failed])).toBe('failed');
  });
});

describe('round robin', () => {
  it('should take the member after the last one in id order, wrapping around, and nobody from an empty list', () => {
    expect(nextInRotation(['c', 'a', 'b'], null)).toBe('a');
    expect(nextInRotation(['c', 'a', 'b'], 'a')).toBe('b');
    expect(nextInRotation(['c', 'a', 'b'], 'c')).toBe('a');
    expect(nextInRotation(['a', 'c'], 'b')).toBe('c');
    expect(nextInRotation([], 'a')).toBeUndefined();
  });
});
