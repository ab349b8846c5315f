import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { assertAllowed, Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { REENGAGEMENT_CONFIGURE, REENGAGEMENT_DRAFTS_REVIEW } from '../reengagement.permissions';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { ReengagementSettings } from '../application/settings.service';
import { ReviewService } from '../application/review.service';
import { DraftEditDto, DraftListQueryDto, ReengagementSettingsDto } from './reengagement.dto';
import { CONVERSATION_STATE, DRAFT_PAGE, NUDGE_ANSWER, SETTINGS, SETTINGS_SAVED_ANSWER } from './reengagement.responses';

// AI re-engagement (docs/reengagement.md): settings for OWNER and ADMIN; drafts reviewed by agents.
@ApiTags('reengagement')
@Controller('functions/v1/reengagement')
@Authenticated('session')
export class ReengagementController {
  constructor(
    private readonly settings: ReengagementSettings,
    private readonly review: ReviewService,
  ) {}

  @ApiErrors(403)
  @ApiAnswer(200, SETTINGS)
  @Get('settings')
  show(@CurrentCaller() caller: Caller) {
    assertAllowed(caller.ctx.role, REENGAGEMENT_CONFIGURE);
    return this.settings.show(caller.ctx);
  }

  @ApiErrors(400, 403, 422)
  @ApiAnswer(200, SETTINGS_SAVED_ANSWER)
  @Put('settings')
  change(@CurrentCaller() caller: Caller, @Body() body: ReengagementSettingsDto) {
    assertAllowed(caller.ctx.role, REENGAGEMENT_CONFIGURE);
    return this.settings.change(caller.ctx, body);
  }

  @ApiErrors(400, 403)
  @ApiAnswer(200, DRAFT_PAGE)
  @Get('drafts')
  list(@CurrentCaller() caller: Caller, @Query() q: DraftListQueryDto) {
    assertAllowed(caller.ctx.role, REENGAGEMENT_DRAFTS_REVIEW);
    return this.review.list(caller.ctx, { status: q.status, page: q.page ?? 1, limit: q.limit ?? 50 });
  }

  @ApiErrors(400, 403, 404, 409, 422)
  @ApiAnswer(200, NUDGE_ANSWER)
  @Post('drafts/:id/approve')
  @HttpCode(200)
  approve(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    assertAllowed(caller.ctx.role, REENGAGEMENT_DRAFTS_REVIEW);
    return this.review.send(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404, 409, 422)
  @ApiAnswer(200, NUDGE_ANSWER)
  @Post('drafts/:id/edit')
  @HttpCode(200)
  edit(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: DraftEditDto) {
    assertAllowed(caller.ctx.role, REENGAGEMENT_DRAFTS_REVIEW);
    return this.review.send(caller.ctx, id, body.text.trim());
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, NUDGE_ANSWER)
  @Post('drafts/:id/skip')
  @HttpCode(200)
  skip(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    assertAllowed(caller.ctx.role, REENGAGEMENT_DRAFTS_REVIEW);
    return this.review.skip(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404)
  @ApiAnswer(200, CONVERSATION_STATE)
  @Get('conversations/:id')
  state(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    assertAllowed(caller.ctx.role, REENGAGEMENT_DRAFTS_REVIEW);
    return this.review.conversationState(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404)
  @ApiAnswer(200, CONVERSATION_STATE)
  @Post('conversations/:id/enable')
  @HttpCode(200)
  enable(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    assertAllowed(caller.ctx.role, REENGAGEMENT_CONFIGURE);
    return this.review.enable(caller.ctx, id);
  }
}
