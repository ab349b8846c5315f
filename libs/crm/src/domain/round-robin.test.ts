import { nextInRotation } from './round-robin';

describe('round robin', () => {
  it('should continue after the last pick, wrap around and skip the current owner', () => {
    expect(nextInRotation(['a', 'b', 'c'], null, null)).toBe('a');
    expect(nextInRotation(['a', 'b', 'c'], 'a', null)).toBe('b');
    expect(nextInRotation(['a', 'b', 'c'], 'c', null)).toBe('a');
    expect(nextInRotation(['a', 'b', 'c'], 'a', 'b')).toBe('c');
    expect(nextInRotation(['a', 'c'], 'b', null)).toBe('c'); // b went offline: continue after it
    expect(nextInRotation(['a'], null, 'a')).toBeUndefined();
    expect(nextInRotation([], null, null)).toBeUndefined();
  });
});
