import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ValidationFailed } from '@engage/shared-kernel';
import { checkOrganization } from '../domain/report-query';
import { WidgetsService } from '../application/widgets.service';

const bad = (name: string, message: string) => ValidationFailed('widget.invalid_parameter', `${name}: ${message}`, { parameter: name });

// GET /rest/v1/dashboard_widgets answers `{widgets: [...]}` with each widget's computed value
// (§4.6), so this static route takes the list ahead of the data API's /rest/v1/:table; the other
// verbs are the data API's, through WidgetsWriter. Described in /docs by widgets.openapi.ts.
@Controller('rest/v1/dashboard_widgets')
@Authenticated('session')
export class WidgetsController {
  constructor(private readonly widgets: WidgetsService) {}

  @ApiExcludeEndpoint()
  @Get()
  list(@CurrentCaller() caller: Caller, @Query() query: Record<string, unknown>) {
    for (const key of Object.keys(query)) {
      if (!['organization_id', 'is_visible', 'select'].includes(key)) throw bad(key, 'unknown parameter; known: organization_id, is_visible, select');
    }
    checkOrganization(query.organization_id, caller.ctx.organizationId);
    if (query.select !== undefined && query.select !== '*') throw bad('select', 'the list always answers whole widgets (select=*)');
    return this.widgets.list(caller.ctx, { isVisible: visibility(query.is_visible) });
  }
}

// `true`, `false`, or PostgREST's `eq.true` / `is.false`.
function visibility(raw: unknown): boolean | undefined {
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' ? raw.replace(/^(eq|is)\./, '') : raw;
  if (value === 'true' || value === 'false') return value === 'true';
  throw bad('is_visible', 'must be true or false (or eq.true, eq.false)');
}
