import { Module } from '@nestjs/common';
import { IdentityModule, OrganizationSettings } from '@engage/identity';
import { CONFIG, type Config, createOutboundClient, Database, OBJECT_STORAGE, type ObjectStorage } from '@engage/platform';
import { ZOOM_IMPORT_ATTEMPTS, ZoomImport } from './application/zoom-import';
import { ZoomWebhookReceiver } from './application/zoom-webhook';
import { ZoomSettingsController } from './http/zoom-settings.controller';
import { ZoomWebhookController } from './http/zoom-webhook.controller';

// Zoom cloud recordings: the per-organization webhook, its settings, and the import job (docs/calls.md).
@Module({
  imports: [IdentityModule],
  controllers: [ZoomWebhookController, ZoomSettingsController],
  providers: [
    {
      provide: ZoomWebhookReceiver,
      inject: [OrganizationSettings, Database],
      useFactory: (settings: OrganizationSettings, db: Database) => new ZoomWebhookReceiver(settings, db),
    },
    {
      provide: ZoomImport,
      inject: [Database, CONFIG, OBJECT_STORAGE, OrganizationSettings],
      useFactory: (db: Database, config: Config, storage: ObjectStorage, settings: OrganizationSettings) =>
        new ZoomImport({
          db,
          storage,
          outbound: createOutboundClient(config, { keepAlive: false }),
          suiteIdOf: (id) => settings.plain(id, 'suite_id'),
          maxAttempts: ZOOM_IMPORT_ATTEMPTS,
        }),
    },
  ],
})
export class ZoomModule {}
