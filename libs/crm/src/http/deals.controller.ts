import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { DealService } from '../application/deal.service';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { BOARD, DEAL } from './deals.responses';

export class MoveDealDto {
  @ApiProperty({ description: 'target stage: key (LEAD, QUALIFIED, ...) in any case, or the stage name' }) @IsString() @MaxLength(100) stage: string;
  @ApiPropertyOptional({ description: 'index within the target column, 0 = top; default: bottom' }) @IsOptional() @IsInt() @Min(0) position?: number;
}

export class BoardQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsUUID('all') pipeline_id?: string;
  @ApiPropertyOptional({ description: 'cards per column (default 100, at most 500); totals always cover every deal' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}

// The kanban board and drag-and-drop moves. Deal rows themselves are read and written through
// /rest/v1/deals once the data API serves them (see docs/crm.md).
@ApiTags('deals')
@Controller('functions/v1/deals')
@Authenticated('session', 'api_key')
export class DealsController {
  constructor(private readonly deals: DealService) {}

  @ApiAnswer(200, BOARD)
  @Get('board')
  board(@CurrentCaller() caller: Caller, @Query() query: BoardQueryDto) {
    return this.deals.board(caller.ctx, query.pipeline_id, query.limit);
  }

  @ApiErrors(404)
  @ApiAnswer(200, DEAL)
  @Post(':id/move')
  @HttpCode(200)
  move(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: MoveDealDto) {
    return this.deals.move(caller.ctx, id, body.stage, body.position);
  }
}
