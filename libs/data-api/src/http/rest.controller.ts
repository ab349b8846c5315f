import { Controller, Delete, Get, Inject, Param, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { CONFIG, type Config, Database } from '@engage/platform';
import type { ReadLimits } from '../limits';
import { executeRead } from '../read';
import { asPostgrestError } from '../sqlstate';
import { executeWrite } from '../write';
import { type Registry, registryFor } from '../registry';
import { TableWriters } from '../table-writers';

export const DATA_API_REGISTRY = Symbol('DATA_API_REGISTRY');

const rawQuery = (url: string) => (url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');

// GET (and HEAD, which Fastify derives from GET) on registered tables, in the caller's tenant
// transaction. /rest/v1 takes a session JWT; the record proxy (§4.5) also an organization API key.
// Its errors take the proxy's {error, hint} body from the URL family.
@ApiExcludeController()
@Controller()
export class RestController {
  constructor(
    @Inject(DATA_API_REGISTRY) private readonly registry: Registry,
    private readonly db: Database,
    private readonly writers: TableWriters,
    @Inject(CONFIG) config: Config,
  ) {
    this.limits = { maxRows: config.DATA_API_MAX_ROWS, maxResponseBytes: config.DATA_API_MAX_RESPONSE_BYTES };
  }

  private readonly limits: ReadLimits;

  @Get('rest/v1/:table')
  @Authenticated('session')
  async rest(@CurrentCaller() caller: Caller, @Param('table') table: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.read(caller, table, request, reply);
  }

  @Get('functions/v1/rest-api-proxy/:table')
  @Authenticated('session', 'api_key')
  async proxy(@CurrentCaller() caller: Caller, @Param('table') table: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.read(caller, table, request, reply);
  }

  @Post('rest/v1/:table')
  @Authenticated('session')
  restPost(@CurrentCaller() caller: Caller, @Param('table') table: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.write(caller, table, request, reply, false);
  }

  @Post('functions/v1/rest-api-proxy/:table')
  @Authenticated('session', 'api_key')
  proxyPost(@CurrentCaller() caller: Caller, @Param('table') table: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.write(caller, table, request, reply, true);
  }

  @Patch('rest/v1/:table')
  @Authenticated('session')
  restPatch(@CurrentCaller() caller: Caller, @Param('table') table: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.write(caller, table, request, reply, false);
  }

  @Patch('functions/v1/rest-api-proxy/:table')
  @Authenticated('session', 'api_key')
  proxyPatch(@CurrentCaller() caller: Caller, @Param('table') table: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.write(caller, table, request, reply, true);
  }

  @Delete('rest/v1/:table')
  @Authenticated('session')
  restDelete(@CurrentCaller() caller: Caller, @Param('table') table: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.write(caller, table, request, reply, false);
  }

  @Delete('functions/v1/rest-api-proxy/:table')
  @Authenticated('session', 'api_key')
  proxyDelete(@CurrentCaller() caller: Caller, @Param('table') table: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.write(caller, table, request, reply, true);
  }

  private async write(caller: Caller, table: string, request: FastifyRequest, reply: FastifyReply, proxy: boolean) {
    const method = request.method as 'POST' | 'PATCH' | 'DELETE';
    const response = await this.db
      .inTenant(caller.ctx, (tx) =>
        executeWrite(
          tx,
          registryFor(this.registry, caller.ctx.role),
          this.writers,
          caller.ctx,
          { method, table, query: rawQuery(request.url), headers: request.headers, body: request.body, representationByDefault: proxy },
          this.limits.maxResponseBytes,
        ),
      )
      .catch((error: unknown) => {
        throw asPostgrestError(error);
      });
    return reply
      .status(response.status)
      .headers(response.headers)
      .send(response.body || undefined);
  }

  private async read(caller: Caller, table: string, request: FastifyRequest, reply: FastifyReply) {
    const response = await this.db
      .inTenant(
        caller.ctx,
        (tx) =>
          executeRead(
            tx,
            registryFor(this.registry, caller.ctx.role),
            { method: request.method, table, query: rawQuery(request.url), headers: request.headers },
            this.limits,
          ),
        { readOnly: true },
      )
      .catch((error: unknown) => {
        throw asPostgrestError(error);
      });
    return reply.status(response.status).headers(response.headers).send(response.body);
  }
}
