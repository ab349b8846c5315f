import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { DryRunService } from '../application/dry-run.service';
import { RuleTestDto } from './automation.dto';
import { RULE_TEST } from './automation.responses';

// Rules themselves are read and written through /rest/v1/automation_rules, their runs read
// through /rest/v1/automation_runs; here, the dry run (any member: it reads what they read).
@ApiTags('automation')
@Controller('functions/v1/automation')
@Authenticated('session', 'api_key')
export class AutomationController {
  constructor(private readonly dryRun: DryRunService) {}

  @ApiErrors(404)
  @ApiAnswer(200, RULE_TEST)
  @Post('rules/:id/test')
  @HttpCode(200)
  test(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: RuleTestDto) {
    return this.dryRun.test(caller.ctx, id, body.subject_id);
  }
}
