import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { identityMigrations } from '@engage/identity';
import { createTestTenant } from '@engage/identity/testing';
import { startTestApp } from '@engage/platform/testing';
import { DealService } from '../application/deal.service';
import { CrmModule } from '../crm.module';
import { crmMigrations } from '../index';

describe('kanban board and moves over HTTP', () => {
  let app: NestFastifyApplication;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, close } = await startTestApp([CrmModule], { role: 'api', migrations: [...identityMigrations, ...crmMigrations] }));
  });
  afterAll(() => close());

  const newOrg = async () => {
    const tenant = await createTestTenant(app);
    return { ctx: tenant.ctx, headers: tenant.key };
  };

  it('should show the board with per-column totals and move a deal by drag', async () => {
    const { ctx, headers } = await newOrg();
    const deal = await app.get(DealService).create(ctx, { title: 'Drag me', value: 300 });
    await app.get(DealService).create(ctx, { title: 'Stay', value: 200 });
    const board = await app.inject({ method: 'GET', url: '/functions/v1/deals/board', headers });
    expect(board.statusCode).toBe(200);
    const lead = board.json().stages[0];
    expect(lead).toMatchObject({ key: 'LEAD', name: 'Deal', deal_count: 2, total_value: 500 });
    // A bounded number of cards per column; the totals still cover every deal.
    const one = (await app.inject({ method: 'GET', url: '/functions/v1/deals/board?limit=1', headers })).json().stages[0];
    expect(one).toMatchObject({ key: 'LEAD', deal_count: 2, total_value: 500, has_more: true });
    expect(one.deals).toHaveLength(1);
    expect(board.json().stages[0]).toMatchObject({ has_more: false });
    expect(board.json().stages[0].deals).toHaveLength(2);
    const moved = await app.inject({ method: 'POST', url: `/functions/v1/deals/${deal.id}/move`, headers, payload: { stage: 'closed_won', position: 0 } });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ stage: 'CLOSED_WON', probability: 100 });
    const after = (await app.inject({ method: 'GET', url: `/functions/v1/deals/board?pipeline_id=${board.json().pipeline_id}`, headers })).json();
    expect(after.stages.find((s: { key: string }) => s.key === 'CLOSED_WON')).toMatchObject({ deal_count: 1, total_value: 300 });
  });

  it('should answer bad input and other organizations with clear 4xx', async () => {
    const a = await newOrg();
    const b = await newOrg();
    const theirs = await app.get(DealService).create(b.ctx, { title: 'Theirs' });
    const move = (id: string, payload: object, headers = a.headers) => app.inject({ method: 'POST', url: `/functions/v1/deals/${id}/move`, headers, payload });
    expect((await move(theirs.id, { stage: 'LEAD' })).statusCode).toBe(404);
    expect((await move('nope', { stage: 'LEAD' })).statusCode).toBe(400);
    expect((await move(theirs.id, {}, b.headers)).statusCode).toBe(400);
    const unknown = await move(theirs.id, { stage: 'ON_HOLD' }, b.headers);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toContain('valid stages: LEAD, QUALIFIED, PROPOSAL, NEGOTIATION, CLOSED_WON, CLOSED_LOST');
    expect((await move(theirs.id, { stage: 'LEAD', position: -1 }, b.headers)).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/functions/v1/deals/board?pipeline_id=x', headers: a.headers })).statusCode).toBe(400);
    for (const limit of ['0', '501', 'x'])
      expect((await app.inject({ method: 'GET', url: `/functions/v1/deals/board?limit=${limit}`, headers: a.headers })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: `/functions/v1/deals/board?pipeline_id=${theirs.pipeline_id}`, headers: a.headers })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/functions/v1/deals/board' })).statusCode).toBe(401);
  });
});
