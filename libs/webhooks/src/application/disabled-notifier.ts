import type { EmailSender, MembershipService } from '@engage/identity';
import type { DisabledNotice } from './delivery-runner';

// Emails the organization's OWNERs and ADMINs when the service disables one of their webhooks.
export class DisabledNotifier {
  constructor(
    private readonly members: MembershipService,
    private readonly mail: EmailSender,
    private readonly warn: (message: string, error: unknown) => void = () => undefined,
  ) {}

  async notify(notice: DisabledNotice): Promise<void> {
    // Read as the organization's owner would: the member list is for members only.
    const ctx = { organizationId: notice.organizationId, userId: null, role: 'OWNER' as const, requestId: `webhook-disabled:${notice.webhookId}` };
    const admins = (await this.members.listMembers(ctx)).filter((member) => member.role === 'OWNER' || member.role === 'ADMIN');
    for (const admin of admins) {
      await this.mail
        .send({
          to: admin.email,
          subject: `Webhook "${notice.name}" was disabled`,
          text: [
            `Engage stopped sending events to the webhook "${notice.name}" (${notice.url}).`,
            `Reason: ${notice.reason}.`,
            'Its delivery log (webhook_logs) shows the failed attempts. Fix the endpoint, then set is_active back to true to resume deliveries.',
          ].join('\n\n'),
        })
        .catch((error) => this.warn(`webhook disabled notice to ${admin.email} failed`, error));
    }
  }
}
