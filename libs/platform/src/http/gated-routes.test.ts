import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { type CanActivate, Controller, type ExecutionContext, Get, Injectable, Module, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import { AllErrorsFilter } from './all-errors.filter';
import { OrgGate } from './org-gate';
import { gateAs, installGatedRoutes } from './gated-routes';

const ORG = '6f1d2c3b-0000-4000-8000-000000000001';
const gate = new OrgGate({
  perOrganization: 1,
  perSlowOrganization: 1,
  slowMs: 1000,
  total: 4,
  queue: 0,
  waitMs: 1000,
  refusalDelayMs: 0,
  uploadsPerOrganization: 1,
  uploads: 3,
});

// Stands for a guard naming the caller's organization.
@Injectable()
class NamesOrganization implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    await gateAs(gate, context.switchToHttp().getRequest<FastifyRequest>(), ORG);
    return true;
  }
}

let finishSlow: () => void = () => undefined;

@Controller('rest/v1/things')
@UseGuards(NamesOrganization)
class TenantController {
  @Get()
  read() {
    return { running: gate.running(ORG) };
  }

  @Get('failing')
  failing() {
    throw new Error('the handler failed');
  }

  @Get('slow')
  async slow() {
    await new Promise<void>((resolve) => (finishSlow = resolve));
    return {};
  }
}

@Controller()
@UseGuards(NamesOrganization)
class OtherController {
  @Get('healthz')
  health() {
    return { running: gate.running(ORG) };
  }

  @Get('functions/v1/probe')
  probe() {
    return { running: gate.running(ORG) };
  }
}

@Module({ controllers: [TenantController, OtherController], providers: [NamesOrganization] })
class ProbeModule {}

async function start(gated: boolean): Promise<{ app: NestFastifyApplication; base: string }> {
  const app = await NestFactory.create<NestFastifyApplication>(ProbeModule, new FastifyAdapter({ forceCloseConnections: true }), { logger: false });
  app.useGlobalFilters(new AllErrorsFilter(pino({ level: 'silent' })));
  if (gated) installGatedRoutes(app.getHttpAdapter().getInstance());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}

const until = async (condition: () => boolean) => {
  for (let tries = 0; !condition() && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('installGatedRoutes and gateAs', () => {
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => ({ app, base } = await start(true)));
  afterAll(() => app.close());
  afterEach(() => expect(gate.running(ORG)).toBe(0));

  it('should hold a slot of the organization while a tenant-scoped route runs, give it back after, and leave health ungated', async () => {
    expect(await (await fetch(`${base}/rest/v1/things`)).json()).toMatchObject({ running: 1 });
    expect(await (await fetch(`${base}/functions/v1/probe`)).json()).toMatchObject({ running: 1 });
    expect((await fetch(`${base}/rest/v1/things`, { method: 'HEAD' })).status).toBe(200);
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ running: 0 });
  });

  it('should refuse a tenant-scoped request with 429 while its organization has no free slot, and not /healthz', async () => {
    const held = await gate.enter(ORG);
    try {
      const refused = await fetch(`${base}/rest/v1/things`);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'too_many_concurrent_requests' });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      held();
    }
    expect((await fetch(`${base}/rest/v1/things`)).status).toBe(200);
  });

  it('should give the slot back when the handler throws', async () => {
    expect((await fetch(`${base}/rest/v1/things/failing`)).status).toBe(500);
    expect((await fetch(`${base}/rest/v1/things`)).status).toBe(200);
  });

  it('should keep the slot while the handler still runs after its client went away, and give it back when it ends', async () => {
    const abort = new AbortController();
    const request = fetch(`${base}/rest/v1/things/slow`, { signal: abort.signal }).catch(() => undefined);
    await until(() => gate.running(ORG) === 1);
    abort.abort();
    await request;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gate.running(ORG)).toBe(1);
    finishSlow();
    await until(() => gate.running(ORG) === 0);
  });

  it('should not gate the routes of an app without installGatedRoutes (nothing there would give a slot back)', async () => {
    const plain = await start(false);
    try {
      expect(await (await fetch(`${plain.base}/rest/v1/things`)).json()).toEqual({ running: 0 });
    } finally {
      await plain.app.close();
    }
  });
});
