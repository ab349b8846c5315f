import { DEFAULT_STAGES, ownerChangeReason, probabilityAfterMove, resolveStage } from './stages';

describe('stages', () => {
  it.each([
    ['LEAD', 'LEAD'],
    ['lead', 'LEAD'],
    ['Deal', 'LEAD'],
    ['PROSPECT', 'LEAD'],
    ['qualified', 'QUALIFIED'],
    ['NEGOTIATION', 'NEGOTIATION'],
    ['closed_won', 'CLOSED_WON'],
    ['Closed Won', 'CLOSED_WON'],
    ['closed-lost', 'CLOSED_LOST'],
    ['Proposal', 'PROPOSAL'],
  ])('should map %s to %s', (value, key) => {
    expect(resolveStage(value, DEFAULT_STAGES).key).toBe(key);
  });

  it('should refuse an unknown stage listing the valid ones', () => {
    expect(() => resolveStage('ON_HOLD', DEFAULT_STAGES)).toThrow(
      'unknown stage "ON_HOLD"; valid stages: LEAD, QUALIFIED, PROPOSAL, NEGOTIATION, CLOSED_WON, CLOSED_LOST',
    );
    expect(() => resolveStage(42, DEFAULT_STAGES)).toThrow('stage must be a non-empty string');
  });

  it('should set probability 100 when won, 0 when lost, else the stage default or keep it', () => {
    expect(probabilityAfterMove({ outcome: 'won', default_probability: 80 }, 30)).toBe(100);
    expect(probabilityAfterMove({ outcome: 'lost', default_probability: 50 }, 30)).toBe(0);
    expect(probabilityAfterMove({ outcome: 'open', default_probability: 75 }, 30)).toBe(75);
    expect(probabilityAfterMove({ outcome: 'open', default_probability: null }, 30)).toBe(30);
  });

  it('should name the reason of an owner change', () => {
    expect(ownerChangeReason(null, 'u1', false, false)).toBe('Initial assignment');
    expect(ownerChangeReason('u1', 'u2', true, false)).toBe('Reassigned');
    expect(ownerChangeReason('u1', null, true, false)).toBe('Unassigned');
    expect(ownerChangeReason(null, 'u2', true, false)).toBe('Reassigned');
    expect(ownerChangeReason('u1', 'u2', true, true)).toBe('Auto-reassigned');
    expect(ownerChangeReason('u1', 'u1', true, false)).toBeNull();
  });
});
