import { Body, Controller, Get, HttpCode, Ip, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Caller } from '../application/authenticator';
import { SessionService } from '../application/session.service';
import { toGoTrueUser } from './gotrue-user';
import { Authenticated, CurrentCaller } from './auth.guard';
import { GrantQueryDto, LogoutQueryDto, TokenBodyDto } from './auth.dto';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { GOTRUE_SESSION, GOTRUE_USER } from './auth.responses';

// GoTrue-compatible endpoints used by @supabase/supabase-js (auth-js).
@ApiTags('auth')
@Controller('auth/v1')
export class AuthController {
  constructor(private readonly sessions: SessionService) {}

  @ApiErrors(429)
  @ApiAnswer(200, GOTRUE_SESSION)
  @Post('token')
  @HttpCode(200)
  async token(@Query() query: GrantQueryDto, @Body() body: TokenBodyDto, @Ip() ip: string) {
    const session =
      query.grant_type === 'password' ? await this.sessions.signInWithPassword(body.email, body.password, ip) : await this.sessions.refresh(body.refresh_token);
    return { ...session, user: toGoTrueUser(session.user) };
  }

  @ApiAnswer(200, GOTRUE_USER)
  @Get('user')
  @Authenticated('session')
  async user(@CurrentCaller() caller: Caller) {
    return toGoTrueUser(await this.sessions.currentUser(caller.ctx.userId!, caller.ctx.organizationId));
  }

  @Post('logout')
  @HttpCode(204)
  @Authenticated('session')
  async logout(@CurrentCaller() caller: Caller, @Query() query: LogoutQueryDto) {
    await this.sessions.signOut(caller.ctx.userId!, caller.sessionId!, query.scope ?? 'global');
  }
}
