import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Caller } from '../application/authenticator';
import { MembershipService } from '../application/membership.service';
import { Authenticated, CurrentCaller } from './auth.guard';
import { AcceptInvitationDto, InvitationTokenQueryDto, InviteMemberDto } from './members.dto';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { INVITATION, INVITATION_ACCEPTED, INVITATION_PREVIEW, INVITATIONS } from './team.responses';

const ACCEPT_PATH = '/functions/v1/invitations/accept';

// OWNER and ADMIN invite by email; the invitee accepts with the emailed token (no session).
@ApiTags('invitations')
@Controller('functions/v1/invitations')
export class InvitationsController {
  constructor(private readonly members: MembershipService) {}

  @ApiErrors(409)
  @ApiAnswer(201, INVITATION)
  @Post()
  @HttpCode(201)
  @Authenticated('session')
  invite(@CurrentCaller() caller: Caller, @Body() body: InviteMemberDto) {
    return this.members.invite(caller.ctx, { email: body.email, role: body.role });
  }

  @ApiAnswer(200, INVITATIONS)
  @Get()
  @Authenticated('session')
  async list(@CurrentCaller() caller: Caller) {
    return { invitations: await this.members.listInvitations(caller.ctx) };
  }

  // The emailed link lands here: say what the invitation is and how to accept it.
  @ApiAnswer(200, INVITATION_PREVIEW)
  @Get('accept')
  @Header('Cache-Control', 'no-store')
  @Header('Referrer-Policy', 'no-referrer')
  async describe(@Query() query: InvitationTokenQueryDto) {
    const invitation = await this.members.previewInvitation(query.token);
    return { invitation, accept: { method: 'POST', url: ACCEPT_PATH, body: ['token', 'password', 'first_name?', 'last_name?'] } };
  }

  @ApiAnswer(200, INVITATION_ACCEPTED)
  @Post('accept')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  accept(@Body() body: AcceptInvitationDto) {
    return this.members.acceptInvitation(body);
  }

  @ApiErrors(404)
  @Delete(':id')
  @HttpCode(204)
  @Authenticated('session')
  async revoke(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    await this.members.revokeInvitation(caller.ctx, id);
  }
}
