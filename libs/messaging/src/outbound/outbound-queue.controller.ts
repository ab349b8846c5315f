import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { MAX_MESSAGE_CHARACTERS } from '../domain/send-request';
import { MESSAGE_ORIGINS } from '../domain/message-origin';
import { ChannelPacingService } from './channel-pacing.service';
import {
  MAX_ITEMS_LIMIT,
  MAX_ITEMS_OFFSET,
  MAX_MEDIA_URL_LENGTH,
  MAX_PAUSE_REASON_CHARACTERS,
  MEDIA_KINDS,
  parseQueueItemsQuery,
  QUEUE_ITEM_STATUSES,
} from './outbound-queue';
import { OutboundQueueService } from './outbound-queue.service';
import { CHANNEL_QUEUE_ACCOUNT, OUTBOUND_QUEUE, OUTBOUND_QUEUE_ITEMS, QUEUED_SEND } from './outbound-queue.responses';
import { QueuedSendService } from './queued-send.service';

// The shapes; the rules (one recipient, lengths, NUL, formats) are outbound-queue.ts's, so a wrong
// value is a 400 naming the field wherever it is checked.
export class QueuedSendDto {
  @ApiProperty({ format: 'uuid', description: 'the channel account it goes out on' }) @Allow() channel_account_id!: string;
  @ApiProperty({ required: false, description: 'a phone number (chat app, SMS: E.164); the contact is found or created' }) @Allow() to?: string;
  @ApiProperty({ required: false, format: 'uuid', description: 'the contact: their conversation on the account, found or created' })
  @Allow()
  contact_id?: string;
  @ApiProperty({ required: false, format: 'uuid', description: 'a conversation on the account' }) @Allow() conversation_id?: string;
  @ApiProperty({ maxLength: MAX_MESSAGE_CHARACTERS, description: 'the text or caption (characters, not bytes)' }) @Allow() text!: string;
  @ApiProperty({ required: false, maxLength: MAX_MEDIA_URL_LENGTH, description: 'an http(s) address of a file sent with it' }) @Allow() media_url?: string;
  @ApiProperty({ required: false, enum: MEDIA_KINDS }) @Allow() media_kind?: string;
}

export class QueueItemsQueryDto {
  @ApiProperty({ required: false, format: 'uuid' }) @Allow() channel_account_id?: string;
  @ApiProperty({ required: false, enum: MESSAGE_ORIGINS.filter((origin) => origin !== 'customer') }) @Allow() origin?: string;
  @ApiProperty({ required: false, enum: QUEUE_ITEM_STATUSES, default: 'QUEUED' }) @Allow() status?: string;
  @ApiProperty({ required: false, default: 50, minimum: 1, maximum: MAX_ITEMS_LIMIT }) @Allow() limit?: string;
  @ApiProperty({ required: false, default: 0, minimum: 0, maximum: MAX_ITEMS_OFFSET }) @Allow() offset?: string;
}

export class PauseDto {
  @ApiProperty({ required: false, maxLength: MAX_PAUSE_REASON_CHARACTERS, description: "stored as paused_reason 'manual: <reason>'" }) @Allow() reason?: string;
}

// The paced send queue over HTTP (docs/messaging.md, "The queue's endpoints"): the queued send for
// integrators, the queue per account and its messages (any member or the API key), an account's
// pacing and pause (OWNER, ADMIN or the API key to change; PATCH .../channel-accounts/<id> is the
// inbox controller's).
@ApiTags('messaging')
@Controller('functions/v1/messaging')
@Authenticated('session', 'api_key')
export class OutboundQueueController {
  constructor(
    private readonly sends: QueuedSendService,
    private readonly queue: OutboundQueueService,
    private readonly pacing: ChannelPacingService,
  ) {}

  @ApiErrors(400, 404, 422)
  @ApiAnswer(202, QUEUED_SEND)
  @Post('outbound')
  @HttpCode(202)
  send(@CurrentCaller() caller: Caller, @Body() body: QueuedSendDto) {
    return this.sends.send(caller.ctx, body);
  }

  @ApiAnswer(200, OUTBOUND_QUEUE)
  @Get('outbound-queue')
  summary(@CurrentCaller() caller: Caller) {
    return this.queue.summary(caller.ctx);
  }

  @ApiErrors(400, 404)
  @ApiAnswer(200, OUTBOUND_QUEUE_ITEMS)
  @Get('outbound-queue/items')
  items(@CurrentCaller() caller: Caller, @Query() query: QueueItemsQueryDto) {
    return this.queue.items(caller.ctx, parseQueueItemsQuery({ ...query }));
  }

  @ApiErrors(404)
  @ApiAnswer(200, CHANNEL_QUEUE_ACCOUNT)
  @Get('channel-accounts/:id')
  account(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.pacing.get(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404)
  @ApiAnswer(200, CHANNEL_QUEUE_ACCOUNT)
  @Post('channel-accounts/:id/pause')
  @HttpCode(200)
  pause(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: PauseDto) {
    return this.pacing.pause(caller.ctx, id, body === undefined || body === null ? undefined : { ...body });
  }

  @ApiErrors(403, 404)
  @ApiAnswer(200, CHANNEL_QUEUE_ACCOUNT)
  @Post('channel-accounts/:id/resume')
  @HttpCode(200)
  resume(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.pacing.resume(caller.ctx, id);
  }
}
