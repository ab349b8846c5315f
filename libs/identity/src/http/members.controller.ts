import { Body, Controller, Delete, Get, HttpCode, Param, Patch } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Caller } from '../application/authenticator';
import { MembershipService } from '../application/membership.service';
import { Authenticated, CurrentCaller } from './auth.guard';
import { ChangeRoleDto } from './members.dto';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { MEMBER, MEMBERS } from './team.responses';

// Settings → Team: every member may list; OWNER and ADMIN change roles and remove members.
@ApiTags('members')
@Controller('functions/v1/members')
@Authenticated('session')
export class MembersController {
  constructor(private readonly members: MembershipService) {}

  @ApiAnswer(200, MEMBERS)
  @Get()
  async list(@CurrentCaller() caller: Caller) {
    return { members: await this.members.listMembers(caller.ctx) };
  }

  @ApiErrors(404, 409)
  @ApiAnswer(200, MEMBER)
  @Patch(':userId')
  changeRole(@CurrentCaller() caller: Caller, @Param('userId') userId: string, @Body() body: ChangeRoleDto) {
    return this.members.changeRole(caller.ctx, userId, body.role);
  }

  @ApiErrors(404, 409)
  @Delete(':userId')
  @HttpCode(204)
  async remove(@CurrentCaller() caller: Caller, @Param('userId') userId: string) {
    await this.members.removeMember(caller.ctx, userId);
  }
}
