import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsOptional, IsString } from 'class-validator';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors, json, viewSchema } from '@engage/platform';
import { MAX_MEDIA_URLS, MAX_TEXT_CHARACTERS, SCHEDULED_MESSAGE_STATUSES, SCHEDULED_MESSAGES } from './scheduled-messages';
import { ScheduledMessageService } from './scheduled-message.service';

// The shapes; the rules (lengths, NUL, the 30 days) are the domain's (scheduled-messages.ts), so a
// wrong value is the same 400 wherever it is checked.
export class NewScheduledMessageDto {
  @ApiProperty({ maxLength: MAX_TEXT_CHARACTERS, description: 'the reply (characters, not bytes)' }) @IsString() text!: string;
  @ApiProperty({ required: false, type: [String], maxItems: MAX_MEDIA_URLS, description: 'http(s) addresses of files sent with it' })
  @IsOptional()
  @IsArray()
  media_urls?: unknown[];
  @ApiProperty({ format: 'date-time', description: 'when it goes out: in the future, at most 30 days ahead, with its offset' })
  @IsString()
  send_at!: string;
  @ApiProperty({ required: false, default: true, description: 'cancelled when the customer writes in the conversation before it is sent' })
  @IsOptional()
  @IsBoolean()
  cancel_on_reply?: boolean;
}

export class ScheduledMessageChangeDto {
  @ApiProperty({ required: false, maxLength: MAX_TEXT_CHARACTERS }) @IsOptional() @IsString() text?: string;
  @ApiProperty({ required: false, format: 'date-time' }) @IsOptional() @IsString() send_at?: string;
}

export class ScheduledMessageListQueryDto {
  @ApiProperty({ required: false, enum: SCHEDULED_MESSAGE_STATUSES }) @IsOptional() @IsString() status?: string;
  @ApiProperty({ required: false, format: 'uuid' }) @IsOptional() @IsString() conversation_id?: string;
  @ApiProperty({ required: false, default: 1 }) @IsOptional() @IsString() page?: string;
  @ApiProperty({ required: false, default: 50, maximum: 200 }) @IsOptional() @IsString() limit?: string;
}

const SCHEDULED_MESSAGE = viewSchema(SCHEDULED_MESSAGES);
const SCHEDULED_MESSAGE_PAGE = json.object({
  scheduled_messages: json.arrayOf(SCHEDULED_MESSAGE),
  total: json.integer,
  page: json.integer,
  limit: json.integer,
  total_pages: json.integer,
});

// Scheduled sends ("send later"): members with the AGENT role or above write, edit and cancel them
// (session); anyone of the organization reads them (session or API key).
@ApiTags('messaging')
@Controller('functions/v1/messaging')
@Authenticated('session', 'api_key')
export class ScheduledMessagesController {
  constructor(private readonly scheduled: ScheduledMessageService) {}

  @ApiErrors(400, 403, 404, 422)
  @ApiAnswer(201, SCHEDULED_MESSAGE)
  @Post('conversations/:id/scheduled-messages')
  create(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: NewScheduledMessageDto) {
    return this.scheduled.create(caller.ctx, id, { ...body });
  }

  @ApiErrors(400)
  @ApiAnswer(200, SCHEDULED_MESSAGE_PAGE)
  @Get('scheduled-messages')
  list(@CurrentCaller() caller: Caller, @Query() q: ScheduledMessageListQueryDto) {
    return this.scheduled.list(caller.ctx, { ...q });
  }

  @ApiErrors(404)
  @ApiAnswer(200, SCHEDULED_MESSAGE)
  @Get('scheduled-messages/:id')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.scheduled.get(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, SCHEDULED_MESSAGE)
  @Patch('scheduled-messages/:id')
  change(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: ScheduledMessageChangeDto) {
    return this.scheduled.change(caller.ctx, id, { ...body });
  }

  @ApiErrors(403, 404, 409)
  @ApiAnswer(200, SCHEDULED_MESSAGE)
  @Delete('scheduled-messages/:id')
  @HttpCode(200)
  cancel(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.scheduled.cancel(caller.ctx, id);
  }
}
