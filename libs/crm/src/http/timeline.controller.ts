import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { TIMELINE_MAX_LIMIT, TimelineService } from '../application/timeline.service';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { TIMELINE_PAGE } from './timeline.responses';

export class TimelineQueryDto {
  @ApiPropertyOptional({ description: `entries per page, 1 to ${TIMELINE_MAX_LIMIT} (default 50)` })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(TIMELINE_MAX_LIMIT)
  limit?: number;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page' }) @IsOptional() @IsString() @MaxLength(200) cursor?: string;
}

// Activity timelines, newest first: messages, calls, notes, tasks, stage and owner changes, nudges.
@ApiTags('timeline')
@Controller('functions/v1')
@Authenticated('session', 'api_key')
export class TimelineController {
  constructor(private readonly timeline: TimelineService) {}

  @ApiErrors(404)
  @ApiAnswer(200, TIMELINE_PAGE)
  @Get('contacts/:id/timeline')
  contact(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: TimelineQueryDto) {
    return this.timeline.list(caller.ctx, 'contact', id, query);
  }

  @ApiErrors(404)
  @ApiAnswer(200, TIMELINE_PAGE)
  @Get('companies/:id/timeline')
  company(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: TimelineQueryDto) {
    return this.timeline.list(caller.ctx, 'company', id, query);
  }

  @ApiErrors(404)
  @ApiAnswer(200, TIMELINE_PAGE)
  @Get('deals/:id/timeline')
  deal(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: TimelineQueryDto) {
    return this.timeline.list(caller.ctx, 'deal', id, query);
  }
}
