import type { OnModuleDestroy } from '@nestjs/common';
import { type Config, settingsOf } from '@engage/platform';
import { MESSAGING_SETTINGS } from '../../messaging.settings';
import type { MessagingProvider } from './messaging-provider.port';
import { HttpMessagingProvider } from './http-messaging-provider';
import { SandboxProvider } from './sandbox-provider';

// NOTIFY_URL when set; otherwise the loopback sandbox, which production refuses.
export class ProviderHolder implements OnModuleDestroy {
  private constructor(
    readonly provider: MessagingProvider,
    readonly sandbox: SandboxProvider | undefined,
  ) {}

  static async create(config: Config): Promise<ProviderHolder> {
    const { NOTIFY_URL, PROVIDER_TIMEOUT_MS } = settingsOf(config, MESSAGING_SETTINGS);
    if (NOTIFY_URL) return new ProviderHolder(new HttpMessagingProvider(NOTIFY_URL, PROVIDER_TIMEOUT_MS), undefined);
    SandboxProvider.refuseInProduction(config.NODE_ENV);
    const sandbox = new SandboxProvider();
    const url = await sandbox.start();
    return new ProviderHolder(new HttpMessagingProvider(url, PROVIDER_TIMEOUT_MS), sandbox);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sandbox?.stop();
  }
}
