import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SendFailed } from '../outbound/dispatcher';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ChannelAccountService } from './channel-account.service';
import { ConversationService } from './conversation.service';
import { CHANNEL_KINDS, CONVERSATION_STATUSES } from '../domain/statuses';
import {
  CHANNEL_ACCOUNT,
  CHANNEL_WITH_TOKEN,
  CONVERSATION,
  CONVERSATION_PAGE,
  CONVERSATION_WITH_MESSAGES,
  SEND_OUTCOME,
  UNREAD_COUNTS,
} from './messaging.responses';
import { ApiAnswer, ApiErrors, json } from '@engage/platform';
import { ChannelPacingService } from '../outbound/channel-pacing.service';
import { CHANNEL_QUEUE_ACCOUNT } from '../outbound/outbound-queue.responses';

export class ConversationListQueryDto {
  @ApiProperty({ required: false, enum: CONVERSATION_STATUSES }) @IsOptional() @IsIn(CONVERSATION_STATUSES) status?: string;
  @ApiProperty({ required: false }) @IsOptional() @IsUUID() assignee_id?: string;
  @ApiProperty({ required: false, description: 'only conversations without an assignee' })
  @IsOptional()
  @Transform(({ value }) => value === 'true' || value === true)
  @IsBoolean()
  unassigned?: boolean;
  @ApiProperty({ required: false, default: 1 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000) page?: number;
  @ApiProperty({ required: false, default: 50, maximum: 200 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;
}

export class MessagesQueryDto {
  @ApiProperty({ required: false, default: 1 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000) page?: number;
  @ApiProperty({ required: false, default: 50, maximum: 200 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;
}

export class UnreadQueryDto {
  @ApiProperty({ required: false, description: "only the caller's conversations" })
  @IsOptional()
  @Transform(({ value }) => value === 'true' || value === true)
  @IsBoolean()
  mine?: boolean;
}

export class ReplyDto {
  @ApiProperty({ maxLength: 4096 }) @IsString() @MinLength(1) message!: string;
  @ApiProperty({ required: false, type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @Matches(/^https?:\/\/\S+$/i, { each: true })
  @MaxLength(2048, { each: true })
  media_urls?: string[];
  @ApiProperty({ required: false, maxLength: 998, description: 'email: the subject (default "Re: " and the thread\'s)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @Matches(/^[^\r\n]*$/, { message: 'subject must be one line' })
  subject?: string;
}

export class StatusDto {
  @ApiProperty({ enum: CONVERSATION_STATUSES }) @IsIn(CONVERSATION_STATUSES) status!: string;
  @ApiProperty({ required: false, description: 'required with SNOOZED' }) @IsOptional() @IsISO8601() snoozed_until?: string;
}

export class AssignDto {
  @ApiProperty({ nullable: true }) @ValidateIf((_o, v) => v !== null) @IsUUID() assignee_id!: string | null;
}

export class ChannelAccountDto {
  @ApiProperty({ enum: CHANNEL_KINDS }) @IsIn(CHANNEL_KINDS) kind!: string;
  @ApiProperty() @IsString() @MinLength(1) @MaxLength(200) name!: string;
  @ApiProperty({ required: false, description: 'messenger: the Facebook page id' }) @IsOptional() @IsString() @MaxLength(64) page_id?: string;
  @ApiProperty({ required: false, description: 'instagram: the Instagram professional account id' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  instagram_account_id?: string;
  @ApiProperty({ required: false, description: 'messenger, instagram: the page access token (write-only, stored sealed)', writeOnly: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  page_access_token?: string;
  @ApiProperty({ required: false, description: 'sms: the provider account sid (AC + 32 hexadecimal digits)' })
  @IsOptional()
  @IsString()
  @MaxLength(34)
  account_sid?: string;
  @ApiProperty({ required: false, description: 'sms: the account auth token (write-only, stored sealed)', writeOnly: true })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  auth_token?: string;
  @ApiProperty({ required: false, description: 'sms: the sender number in E.164 form' }) @IsOptional() @IsString() @MaxLength(16) from_number?: string;
  @ApiProperty({ required: false, description: "email: the mailbox's address" }) @IsOptional() @IsString() @MaxLength(254) address?: string;
  @ApiProperty({
    required: false,
    type: Object,
    description: 'email: IMAP {host, port, secure, user, password, tls_ca?} (password write-only, sealed; tls_ca: PEM CAs to trust)',
  })
  @IsOptional()
  @IsObject()
  imap?: Record<string, unknown>;
  @ApiProperty({
    required: false,
    type: Object,
    description: 'email: SMTP {host, port, secure, user, password, tls_ca?} (password write-only, sealed; tls_ca: PEM CAs to trust)',
  })
  @IsOptional()
  @IsObject()
  smtp?: Record<string, unknown>;
}

export class ChannelActiveDto {
  @ApiProperty({ required: false }) @IsOptional() @IsBoolean() is_active?: boolean;
  // The queue's pacing: the fields given change, each checked by the domain (400 naming it); null: the kind's defaults.
  @ApiProperty({ required: false, type: Object, nullable: true, description: 'pacing fields to change (OWNER, ADMIN, API key); null: back to the defaults' })
  @IsOptional()
  pacing?: Record<string, unknown> | null;
}

// The agents' inbox (session of a member, or the organization's API key).
@ApiTags('messaging')
@Controller('functions/v1/messaging')
@Authenticated('session', 'api_key')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationService,
    private readonly channels: ChannelAccountService,
    private readonly pacing: ChannelPacingService,
  ) {}

  @ApiAnswer(200, CONVERSATION_PAGE)
  @Get('conversations')
  list(@CurrentCaller() caller: Caller, @Query() q: ConversationListQueryDto) {
    return this.conversations.list(caller.ctx, {
      status: q.status,
      assignee_id: q.assignee_id,
      unassigned: q.unassigned,
      page: q.page ?? 1,
      limit: q.limit ?? 50,
    });
  }

  @ApiAnswer(200, UNREAD_COUNTS)
  @Get('unread-counts')
  unread(@CurrentCaller() caller: Caller, @Query() q: UnreadQueryDto) {
    return this.conversations.unreadCounts(caller.ctx, q.mine === true);
  }

  @ApiErrors(404)
  @ApiAnswer(200, CONVERSATION_WITH_MESSAGES)
  @Get('conversations/:id')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() q: MessagesQueryDto) {
    return this.conversations.get(caller.ctx, id, q.page ?? 1, q.limit ?? 50);
  }

  @ApiErrors(404)
  @ApiAnswer(200, CONVERSATION)
  @Post('conversations/:id/read')
  @HttpCode(200)
  read(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.conversations.markRead(caller.ctx, id);
  }

  @ApiErrors(404, 422)
  @ApiAnswer(200, SEND_OUTCOME)
  @Post('conversations/:id/reply')
  @HttpCode(200)
  async reply(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: ReplyDto, @Res({ passthrough: true }) reply: FastifyReply) {
    try {
      return await this.conversations.reply(caller.ctx, id, body);
    } catch (error) {
      // As chat-lite-send (§7): the attempt is stored FAILED and the answer carries the provider's message.
      if (!(error instanceof SendFailed)) throw error;
      void reply.status(500);
      return { error: error.message, code: 'provider_error' };
    }
  }

  @ApiErrors(404)
  @ApiAnswer(200, CONVERSATION)
  @Patch('conversations/:id/status')
  status(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: StatusDto) {
    return this.conversations.changeStatus(caller.ctx, id, body);
  }

  @ApiErrors(404)
  @ApiAnswer(200, CONVERSATION)
  @Patch('conversations/:id/assignee')
  assign(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: AssignDto) {
    return this.conversations.assign(caller.ctx, id, body.assignee_id);
  }

  @ApiAnswer(200, json.arrayOf(CHANNEL_ACCOUNT))
  @Get('channel-accounts')
  channelAccounts(@CurrentCaller() caller: Caller) {
    return this.channels.list(caller.ctx);
  }

  @ApiErrors(409)
  @ApiAnswer(201, CHANNEL_WITH_TOKEN)
  @Post('channel-accounts')
  createChannel(@CurrentCaller() caller: Caller, @Body() body: ChannelAccountDto) {
    return this.channels.create(caller.ctx, { ...body });
  }

  @ApiErrors(403, 404)
  @ApiAnswer(200, CHANNEL_QUEUE_ACCOUNT)
  @Patch('channel-accounts/:id')
  setActive(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: ChannelActiveDto) {
    return this.pacing.change(caller.ctx, id, { is_active: body.is_active, pacing: body.pacing });
  }

  @ApiErrors(404)
  @ApiAnswer(200, CHANNEL_WITH_TOKEN)
  @Post('channel-accounts/:id/rotate-token')
  @HttpCode(200)
  rotate(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.channels.rotateToken(caller.ctx, id);
  }
}
