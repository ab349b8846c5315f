import type { OrganizationSettings } from '@engage/identity';
import { instantsOfWallClock, recipientTimeZone, wallClockMs } from '@engage/messaging';
import type { ZoneClock } from '../domain/step-timing';

export const ZONE_CLOCK: ZoneClock = { wallClockMs, instantsOfWallClock };

// A recipient's time zone by the paced queue's rule (docs/messaging.md): the phone number's country
// when it keeps one clock, else the organization's `time_zone` (UTC when unset). Contacts carry no
// zone of their own today, so the queue and the sequences both start from the phone.
export class RecipientZones {
  constructor(private readonly settings: Pick<OrganizationSettings, 'plain'>) {}

  // The zone of each phone for one organization (its setting read once).
  async forOrganization(organizationId: string): Promise<(phone: string | null) => string> {
    const organizationZone = (await this.settings.plain(organizationId, 'time_zone')) ?? 'UTC';
    return (phone) => recipientTimeZone(null, phone ? `+${phone.replace(/^\+/, '')}` : null, organizationZone);
  }
}
