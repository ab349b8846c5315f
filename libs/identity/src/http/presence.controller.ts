import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import type { Caller } from '../application/authenticator';
import { PresenceService } from '../application/presence.service';
import { Authenticated, CurrentCaller } from './auth.guard';
import { ApiAnswer } from '@engage/platform';
import { PRESENCE } from './team.responses';

export class HeartbeatDto {
  @ApiProperty({ required: false, default: true, description: 'false when the agent goes offline on purpose' })
  @IsOptional()
  @IsBoolean()
  online?: boolean;
}

// Agents' apps call this every minute or two; silence for 5 minutes marks them offline.
@ApiTags('presence')
@Controller('functions/v1/presence')
export class PresenceController {
  constructor(private readonly presence: PresenceService) {}

  @ApiAnswer(200, PRESENCE)
  @Post()
  @HttpCode(200)
  @Authenticated('session')
  heartbeat(@CurrentCaller() caller: Caller, @Body() body: HeartbeatDto) {
    return this.presence.heartbeat(caller.ctx, body.online ?? true);
  }
}
