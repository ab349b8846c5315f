import { groupBy } from './group-by';

describe('groupBy', () => {
  it('should keep the first appearance order of keys and the order of items within a group', () => {
    const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (item) => item[0]);
    expect([...groups]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
  });

  it('should give an empty map for no items', () => {
    expect(groupBy([], () => 'x').size).toBe(0);
  });
});
