import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors, Database } from '@engage/platform';
import { csvSafeText, ValidationFailed } from '@engage/shared-kernel';
import { AudienceReader } from '../application/audience-reader';
import { BroadcastsService } from '../application/broadcasts.service';
import { ContentPreviewService } from '../application/content-preview.service';
import { SegmentsService } from '../application/segments.service';
import { parseAudience } from '../domain/audience';
import { isPlainObject } from '../domain/content';
import { BroadcastListQueryDto } from './campaigns.dto';
import { AUDIENCE_PREVIEW, BROADCAST, BROADCAST_PAGE, BROADCAST_REPORT, CONTENT_PREVIEW } from './campaigns.responses';

const CSV_COLUMNS = ['contact_id', 'phone', 'status', 'error', 'message_id', 'queued_at', 'sent_at', 'delivered_at', 'read_at', 'replied_at', 'failed_at'];

// Segments are written through /rest/v1/segments and recipients read through
// /rest/v1/broadcast_recipients; here the previews and the broadcasts' life (docs/campaigns.md).
@ApiTags('campaigns')
@Controller('functions/v1/campaigns')
@Authenticated('session', 'api_key')
export class CampaignsController {
  constructor(
    private readonly db: Database,
    private readonly segments: SegmentsService,
    private readonly audiences: AudienceReader,
    private readonly content: ContentPreviewService,
    private readonly broadcasts: BroadcastsService,
  ) {}

  @ApiErrors(400, 404)
  @ApiAnswer(200, AUDIENCE_PREVIEW)
  @Get('segments/:id/preview')
  segmentPreview(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.segments.preview(caller.ctx, id);
  }

  @ApiErrors(400, 404)
  @ApiAnswer(200, AUDIENCE_PREVIEW)
  @Post('audience/preview')
  @HttpCode(200)
  audiencePreview(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    if (!isPlainObject(body) || Object.keys(body).some((key) => key !== 'audience')) {
      throw ValidationFailed('campaigns.invalid_audience', 'body: must be {audience}', { path: 'audience' });
    }
    const audience = parseAudience(body.audience);
    return this.db.inTenant(caller.ctx, (tx) => this.audiences.preview(tx, caller.ctx, audience), { readOnly: true });
  }

  @ApiErrors(400, 404, 422)
  @ApiAnswer(200, CONTENT_PREVIEW)
  @Post('content/preview')
  @HttpCode(200)
  contentPreview(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    return this.content.preview(caller.ctx, body);
  }

  @ApiErrors(400, 403, 404, 422)
  @ApiAnswer(201, BROADCAST)
  @Post('broadcasts')
  create(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    return this.broadcasts.create(caller.ctx, body);
  }

  @ApiErrors(400)
  @ApiAnswer(200, BROADCAST_PAGE)
  @Get('broadcasts')
  list(@CurrentCaller() caller: Caller, @Query() query: BroadcastListQueryDto) {
    return this.broadcasts.list(caller.ctx, query);
  }

  @ApiErrors(400, 404)
  @ApiAnswer(200, BROADCAST)
  @Get('broadcasts/:id')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.broadcasts.get(caller.ctx, id);
  }

  @ApiErrors(400, 404)
  @ApiAnswer(200, BROADCAST_REPORT)
  @ApiProduces('application/json', 'text/csv')
  @ApiResponse({ status: 200, description: 'With Accept: text/csv, one row per recipient', content: { 'text/csv': { schema: { type: 'string' } } } })
  @Get('broadcasts/:id/report')
  async report(@CurrentCaller() caller: Caller, @Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!wantsCsv(request.headers.accept)) return reply.send(await this.broadcasts.report(caller.ctx, id));
    const rows = await this.broadcasts.recipientsCsv(caller.ctx, id);
    const lines = [CSV_COLUMNS.join(','), ...rows.map((row) => CSV_COLUMNS.map((column) => csvCell(row[column])).join(','))];
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="broadcast-${id}-recipients.csv"`)
      .send(`${lines.join('\r\n')}\r\n`);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, BROADCAST)
  @Post('broadcasts/:id/schedule')
  @HttpCode(200)
  schedule(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: unknown) {
    return this.broadcasts.schedule(caller.ctx, id, body);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, BROADCAST)
  @Post('broadcasts/:id/start')
  @HttpCode(200)
  start(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.broadcasts.start(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, BROADCAST)
  @Post('broadcasts/:id/pause')
  @HttpCode(200)
  pause(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.broadcasts.pause(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, BROADCAST)
  @Post('broadcasts/:id/resume')
  @HttpCode(200)
  resume(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.broadcasts.resume(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, BROADCAST)
  @Post('broadcasts/:id/cancel')
  @HttpCode(200)
  cancel(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.broadcasts.cancel(caller.ctx, id);
  }
}

// text/csv when the client asks for it before (or instead of) JSON.
function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0].trim().toLowerCase());
  const csv = types.indexOf('text/csv');
  const jsonAt = types.findIndex((t) => t === 'application/json' || t === '*/*');
  return csv >= 0 && (jsonAt < 0 || csv < jsonAt);
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = csvSafeText(value instanceof Date ? value.toISOString() : String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
