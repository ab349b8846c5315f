import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { PresenceService } from './presence.service';

// Scheduled only where ScheduleModule runs (worker processes).
@Injectable()
export class PresenceJob {
  constructor(private readonly presence: PresenceService) {}

  @Interval(60_000)
  async expireStale(): Promise<void> {
    await this.presence.expireStale();
  }
}
