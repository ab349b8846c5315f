import { Body, Controller, Get, Headers, Patch, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DomainError, isUuid } from '@engage/shared-kernel';
import type { Caller } from '../application/authenticator';
import { PROFILE_COLUMNS, type Profile, ProfileService } from '../application/profile.service';
import { Authenticated, CurrentCaller } from './auth.guard';

// GET and PATCH /rest/v1/profiles?id=eq.<user_id>, in PostgREST's wire format, until the data API
// engine serves the table.
@ApiTags('profiles')
@Controller('rest/v1/profiles')
@Authenticated('session')
export class ProfilesController {
  constructor(private readonly profiles: ProfileService) {}

  @Get()
  async read(@CurrentCaller() caller: Caller, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply) {
    const { id, columns } = parseQuery(query);
    const rows = await this.profiles.read(caller.ctx, id);
    return send(reply, 200, rows, columns);
  }

  @Patch()
  async update(
    @CurrentCaller() caller: Caller,
    @Query() query: Record<string, unknown>,
    @Body() body: unknown,
    @Headers('prefer') prefer: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    const { id, columns } = parseQuery(query);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('validation', 'PGRST102', 'Request body must be a JSON object');
    const rows = await this.profiles.update(caller.ctx, id, body as Record<string, unknown>);
    if (!/return=representation/.test(prefer ?? '')) return reply.status(204).header('content-range', rows.length ? '0-0/*' : '*/*').send();
    return send(reply, 200, rows, columns);
  }
}

function send(reply: FastifyReply, status: number, rows: Profile[], columns: readonly string[]) {
  const shaped = rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column as keyof Profile]])));
  return reply
    .status(status)
    .header('content-range', shaped.length ? `0-${shaped.length - 1}/*` : '*/*')
    .send(shaped);
}

function parseQuery(query: Record<string, unknown>): { id: string; columns: readonly string[] } {
  const unknown = Object.keys(query).filter((key) => key !== 'id' && key !== 'select');
  if (unknown.length > 0) throw new DomainError('validation', 'PGRST100', `unsupported filter on profiles: ${unknown.join(', ')}`, undefined, 'filter by id=eq.<user id>');
  const filter = query.id;
  if (typeof filter !== 'string' || !filter.startsWith('eq.')) throw new DomainError('validation', 'PGRST100', 'profiles must be filtered by id=eq.<user id>', undefined, 'e.g. ?id=eq.<your user id>');
  const id = filter.slice(3);
  if (!isUuid(id)) throw new DomainError('validation', '22P02', `invalid input syntax for type uuid: "${String(id).slice(0, 64)}"`);
  const select = typeof query.select === 'string' && query.select !== '*' ? query.select.split(',').map((c) => c.trim()) : [...PROFILE_COLUMNS];
  const bad = select.filter((column) => !(PROFILE_COLUMNS as readonly string[]).includes(column));
  if (bad.length > 0) throw new DomainError('validation', '42703', `column profiles.${bad[0]} does not exist`, undefined, `columns: ${PROFILE_COLUMNS.join(', ')}`);
  return { id, columns: select };
}
