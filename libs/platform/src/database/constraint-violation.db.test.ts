import { DomainError, NotFound } from '@engage/shared-kernel';
import { startTestRuntime } from '../testing';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { ConstraintViolationError, constraintViolationOf, type ViolationMap } from './constraint-violation';

// Real violations from a real PostgreSQL, through the transaction API every context uses.
describe('integrity violations through the transaction API', () => {
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'all' });
    await runtime.db.asSystem(async (tx) => {
      await tx.query('CREATE TABLE violation_parents (id int PRIMARY KEY)');
      await tx.query(`CREATE TABLE violation_children (id int PRIMARY KEY, parent_id int CONSTRAINT violation_children_parent_fkey REFERENCES violation_parents,
        label text NOT NULL CONSTRAINT violation_children_label_check CHECK (label = lower(label)))`);
      await tx.query('INSERT INTO violation_parents VALUES (1)');
    });
  });
  afterAll(async () => {
    await runtime.close();
  });

  const insert = (values: unknown[], violations?: ViolationMap) =>
    runtime.db.asSystem((tx) => tx.query('INSERT INTO violation_children (id, parent_id, label) VALUES ($1, $2, $3)', values, { violations }));

  it('should map a violation by constraint name first, then by kind', async () => {
    const byName = { violation_children_parent_fkey: () => NotFound('parent'), foreign_key: () => new Error('kind, not name') };
    await expect(insert([1, 99, 'a'], byName)).rejects.toMatchObject({ code: 'parent.not_found' });
    await expect(insert([2, 99, 'a'], { foreign_key: () => NotFound('anything') })).rejects.toMatchObject({ code: 'anything.not_found' });
    await insert([3, 1, 'a']);
    await expect(insert([3, 1, 'a'], { unique: () => new DomainError('conflict', 'child.exists', 'exists') })).rejects.toMatchObject({ code: 'child.exists' });
  });

  it('should throw a ConstraintViolationError with kind, constraint and column when nothing maps it', async () => {
    const cases: [unknown[], string, string | undefined, string | undefined][] = [
      [[4, 99, 'a'], 'foreign_key', 'violation_children_parent_fkey', undefined],
      [[5, 1, 'UPPER'], 'check', 'violation_children_label_check', undefined],
      [[6, 1, null], 'not_null', undefined, 'label'],
      [[3, 1, 'a'], 'unique', 'violation_children_pkey', undefined],
    ];
    for (const [values, kind, constraint, column] of cases) {
      const error = await insert(values).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConstraintViolationError);
      expect(constraintViolationOf(error)).toEqual({ kind, sqlState: (error as ConstraintViolationError).code, constraint, column });
    }
  });

  it('should leave other errors as they were', async () => {
    const error = await runtime.db.asSystem((tx) => tx.query('SELECT 1/0')).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(ConstraintViolationError);
    expect(constraintViolationOf(error)).toBeNull();
    expect((error as { code?: string }).code).toBe('22012');
  });

  it('should map violations of single system statements too', async () => {
    await expect(
      runtime.db.systemQuery('INSERT INTO violation_children VALUES (7, 99, $1)', ['a'], { violations: { foreign_key: () => NotFound('parent') } }),
    ).rejects.toMatchObject({
      code: 'parent.not_found',
    });
    await expect(runtime.db.systemQuery('INSERT INTO violation_children VALUES (7, 99, $1)', ['a'])).rejects.toBeInstanceOf(ConstraintViolationError);
  });
});
