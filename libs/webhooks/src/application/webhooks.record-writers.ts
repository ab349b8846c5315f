import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RecordWriters } from '@engage/platform';
import { ConfigurationService } from './configuration.service';

// Webhook configurations are written through the data API (/rest/v1/webhook_configurations and
// the record proxy); webhook_logs has no writer, so it is read-only there (405).
@Injectable()
export class WebhooksRecordWriters implements OnModuleInit {
  constructor(
    private readonly writers: RecordWriters,
    private readonly configurations: ConfigurationService,
  ) {}

  onModuleInit(): void {
    this.writers.register('webhook_configurations', {
      create: (tx, ctx, body) => this.configurations.createIn(tx, ctx, body),
      update: (tx, ctx, id, body) => this.configurations.updateIn(tx, ctx, id, body),
      remove: (tx, ctx, id) => this.configurations.removeIn(tx, ctx, id),
    });
  }
}
