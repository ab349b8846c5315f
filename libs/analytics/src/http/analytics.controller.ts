import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiErrors, type json } from '@engage/platform';
import { METRIC_TYPES, parseReportQuery } from '../domain/report-query';
import { AnalyticsService, type Report } from '../application/analytics.service';
import { DEALS_ANSWER, INBOX_ANSWER, METRICS_ANSWER } from './analytics.responses';

// The JSON answer, or with Accept: text/csv the daily series (or the per-conversation drill-down).
const ApiReport = (schema: json.Schema) =>
  ApiResponse({
    status: 200,
    description: 'The report; with Accept: text/csv one row per local day (or per conversation with detail=conversations)',
    content: { 'application/json': { schema }, 'text/csv': { schema: { type: 'string' } } },
  });

// GET /rest/v1/analytics/{metrics,inbox,deals} (§4.6): not tables, so served here; the data API's
// /rest/v1/:table route takes one path segment and never sees these. A member's session or the
// organization's API key may read them.
@ApiTags('analytics')
@ApiQuery({ name: 'organization_id', required: false, description: "The caller's organization (another is a 403)" })
@ApiQuery({ name: 'start_date', required: false, description: 'ISO 8601 date or timestamp; default 29 days before end_date' })
@ApiQuery({ name: 'end_date', required: false, description: 'ISO 8601 date (included) or timestamp; default today' })
@ApiQuery({ name: 'group_by', required: false, enum: ['day'] })
@ApiQuery({ name: 'detail', required: false, enum: ['conversations'], description: 'CSV only: one row per conversation' })
@ApiProduces('application/json', 'text/csv')
@Controller('rest/v1/analytics')
@Authenticated('session', 'api_key')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @ApiQuery({ name: 'metric_type', required: false, enum: [...METRIC_TYPES] })
  @ApiErrors(400, 403)
  @ApiReport(METRICS_ANSWER)
  @Get('metrics')
  metrics(@CurrentCaller() caller: Caller, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer(caller, 'metrics', query, request, reply);
  }

  @ApiErrors(400, 403)
  @ApiReport(INBOX_ANSWER)
  @Get('inbox')
  inbox(@CurrentCaller() caller: Caller, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer(caller, 'inbox', query, request, reply);
  }

  @ApiErrors(400, 403)
  @ApiReport(DEALS_ANSWER)
  @Get('deals')
  deals(@CurrentCaller() caller: Caller, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer(caller, 'deals', query, request, reply);
  }

  private async answer(caller: Caller, report: Report, raw: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply) {
    const query = parseReportQuery(raw, caller.ctx.organizationId);
    if (!wantsCsv(request.headers.accept)) return reply.send(await this.analytics.report(caller.ctx, report, query));
    const stream = await this.analytics.csv(caller.ctx, report, query);
    const name = query.detail ? `${report}-conversations` : `${report}-by-day`;
    return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}.csv"`).send(stream);
  }
}

// text/csv when the client asks for it before (or instead of) JSON.
function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0].trim().toLowerCase());
  const csv = types.indexOf('text/csv');
  const jsonAt = types.findIndex((type) => type === 'application/json' || type === '*/*');
  return csv >= 0 && (jsonAt < 0 || csv < jsonAt);
}
