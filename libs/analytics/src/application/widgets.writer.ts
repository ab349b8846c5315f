import { Injectable } from '@nestjs/common';
import type { RecordWriter, Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { WidgetsService } from './widgets.service';

// POST, PATCH and DELETE on /rest/v1/dashboard_widgets go through the data API to here.
@Injectable()
export class WidgetsWriter implements RecordWriter {
  constructor(private readonly widgets: WidgetsService) {}
  create = (tx: Tx, ctx: RequestContext, body: Record<string, unknown>) => this.widgets.createIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>) => this.widgets.updateIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.widgets.removeIn(tx, ctx, id);
}
