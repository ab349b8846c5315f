import { DatabaseFailure } from './database-failure';
import { isUnreachable, Reachability } from './reachability';

const refused = (code: string | undefined, severity?: string) => new DatabaseFailure(Object.assign(new Error('x'), { code, severity }));

describe('database reachability', () => {
  it('should take connection failures, and only them, for an unreachable database', () => {
    for (const failure of [
      refused('ECONNREFUSED'),
      refused('57P01', 'FATAL'),
      refused('08006'),
      refused('53300', 'FATAL'),
      refused(undefined),
      new DatabaseFailure(new Error('timeout exceeded when trying to connect'), undefined, true),
    ]) {
      expect(isUnreachable(failure)).toBe(true);
    }
    for (const failure of [refused('23505', 'ERROR'), refused('57014', 'ERROR'), refused('42501', 'ERROR'), new Error('ECONNREFUSED'), null]) {
      expect(isUnreachable(failure)).toBe(false);
    }
  });

  it('should tell a change once each way, however many failures come between', () => {
    const reachability = new Reachability();
    const changes: boolean[] = [];
    reachability.onChange((reachable) => changes.push(reachable));
    reachability.answered();
    reachability.failed(refused('23505', 'ERROR'));
    expect(changes).toEqual([]);
    for (let i = 0; i < 50; i++) reachability.failed(refused('ECONNREFUSED'));
    expect(reachability.isReachable).toBe(false);
    reachability.answered();
    reachability.answered();
    expect(changes).toEqual([false, true]);
  });
});
