import { Injectable } from '@nestjs/common';
import type { RecordWriter, Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { ConfigurationService } from './configuration.service';

// Webhook configurations are written through the data API (/rest/v1/webhook_configurations and
// the record proxy); webhook_logs has no writer, so it is read-only there (405).
@Injectable()
export class ConfigurationsWriter implements RecordWriter {
  constructor(private readonly configurations: ConfigurationService) {}
  create = (tx: Tx, ctx: RequestContext, body: Record<string, unknown>) => this.configurations.createIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>) => this.configurations.updateIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.configurations.removeIn(tx, ctx, id);
}
