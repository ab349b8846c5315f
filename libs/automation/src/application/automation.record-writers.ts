import { Injectable } from '@nestjs/common';
import type { RecordWriter, Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { RulesService } from './rules.service';

// /rest/v1/automation_rules (and the record proxy) write through the rule validator; bound to the
// table in the manifest (index.ts). automation_runs has no writer: read-only there (405).
@Injectable()
export class RulesWriter implements RecordWriter {
  constructor(private readonly rules: RulesService) {}
  create = (tx: Tx, ctx: RequestContext, body: Record<string, unknown>) => this.rules.createIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>) => this.rules.updateIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.rules.removeIn(tx, ctx, id);
}
