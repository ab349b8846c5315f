import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Controller, Get, Module, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import { AllErrorsFilter } from './all-errors.filter';
import { OrgGate } from './org-gate';
import { gateAs, OrgGateInterceptor, useOrgGateInterceptor } from './org-gate.interceptor';

const ORG = '6f1d2c3b-0000-4000-8000-000000000001';
const gate = new OrgGate({ perOrganization: 1, perSlowOrganization: 1, slowMs: 1000, total: 4, queue: 0, waitMs: 1000 });

@Controller('rest/v1/things')
class TenantController {
  @Get()
  read(@Req() request: FastifyRequest) {
    return { running: gate.running(ORG), url: request.url };
  }
}

@Controller()
class MixedController {
  @Get('healthz')
  health() {
    return { running: gate.running(ORG) };
  }
}

@Controller()
class FunctionsAtMethodLevel {
  @Get('functions/v1/probe')
  probe() {
    return { running: gate.running(ORG) };
  }
}

@Module({ controllers: [TenantController, MixedController, FunctionsAtMethodLevel] })
class ProbeModule {}

describe('useOrgGateInterceptor', () => {
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(ProbeModule, new FastifyAdapter(), { logger: false });
    // Stands for a guard naming the caller's organization.
    app.getHttpAdapter().getInstance().addHook('onRequest', (request, _reply, done) => {
      gateAs(request, ORG);
      done();
    });
    app.useGlobalFilters(new AllErrorsFilter(pino({ level: 'silent' })));
    useOrgGateInterceptor(app, new OrgGateInterceptor(gate));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('should put the interceptor on the controllers with tenant-scoped routes only', () => {
    const interceptors = (controller: object) => (Reflect.getMetadata('__interceptors__', controller) as unknown[] | undefined) ?? [];
    expect(interceptors(TenantController)).toHaveLength(1);
    expect(interceptors(FunctionsAtMethodLevel)).toHaveLength(1);
    expect(interceptors(MixedController)).toHaveLength(0);
  });

  it("should replace an earlier app's gate interceptor on a controller, never stack a second one", async () => {
    const second = await NestFactory.create<NestFastifyApplication>(ProbeModule, new FastifyAdapter(), { logger: false });
    const latest = new OrgGateInterceptor(gate);
    useOrgGateInterceptor(second, latest);
    await second.close();
    expect(Reflect.getMetadata('__interceptors__', TenantController)).toEqual([latest]);
  });

  it('should hold a slot of the organization while a tenant-scoped route runs, give it back after, and leave health ungated', async () => {
    expect(await (await fetch(`${base}/rest/v1/things`)).json()).toMatchObject({ running: 1 });
    expect(await (await fetch(`${base}/functions/v1/probe`)).json()).toMatchObject({ running: 1 });
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ running: 0 });
    expect(gate.running(ORG)).toBe(0);
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
});
