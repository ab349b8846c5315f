import { Body, Controller, Get, Headers, HttpCode, Inject, Ip, Post, Put, Query, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AccountService } from '../application/account.service';
import { Reauthentication } from '../application/reauthentication';
import type { Caller } from '../application/authenticator';
import { Authenticated, CurrentCaller } from './auth.guard';
import { RecoverDto, SignUpDto, UpdateUserDto, VerifyQueryDto } from './auth.dto';
import { toGoTrueUser } from './gotrue-user';
import { REDIRECT_ALLOWED, type RedirectAllowed } from './redirects';
import { ApiAnswer, ApiErrors, json, PLATFORM_RUNTIME, type PlatformRuntime, publicUrl } from '@engage/platform';
import { GOTRUE_SESSION, GOTRUE_USER } from './auth.responses';

// GoTrue's sign-up, email link, recovery and user-update endpoints.
@ApiTags('auth')
@Controller('auth/v1')
export class AccountController {
  constructor(
    private readonly accounts: AccountService,
    private readonly reauthentication: Reauthentication,
    @Inject(REDIRECT_ALLOWED) private readonly redirectAllowed: RedirectAllowed,
    @Inject(PLATFORM_RUNTIME) private readonly runtime: PlatformRuntime,
  ) {}

  // Confirmation is required: the answer is the user, without a session (auth-js: session null).
  // An address that has an account gets the same answer, with made-up ids (docs/identity.md).
  @ApiErrors(422, 429)
  @ApiAnswer(200, GOTRUE_USER, 'The user, not yet confirmed (no session)')
  @Post('signup')
  @HttpCode(200)
  async signUp(@Body() body: SignUpDto, @Ip() ip: string) {
    return toGoTrueUser(await this.accounts.signUp(body, ip));
  }

  // The emailed link. With an allowed redirect_to the tokens travel in the URL fragment, as GoTrue does.
  // A browser opening the link itself (Accept with text/html, no redirect_to) is sent on to the
  // console's page for it, which verifies through this same route and keeps the session; the token
  // is not used by the redirect. Other clients get the session as JSON.
  @ApiErrors(403)
  @ApiAnswer(200, GOTRUE_SESSION, 'A session (without an allowed redirect_to, to a client not asking for HTML)')
  @ApiResponse({
    status: 303,
    description:
      'To redirect_to, with the session in the URL fragment; or, to a browser (Accept: text/html) without redirect_to, to the console at /app/verify with the same token and type, not yet used',
    headers: { Location: { schema: { type: 'string' } } },
  })
  @Get('verify')
  async verify(@Query() query: VerifyQueryDto, @Headers('accept') accept: string | undefined, @Res() reply: FastifyReply) {
    reply.header('vary', 'Accept');
    if (!query.redirect_to && accept?.includes('text/html')) {
      const link = new URLSearchParams({ token: query.token, type: query.type });
      return reply
        .status(303)
        .header('location', `${publicUrl(this.runtime.config)}/app/verify?${link}`)
        .send();
    }
    const session = await this.accounts.verify(query.token, query.type);
    if (query.redirect_to && this.redirectAllowed(query.redirect_to)) {
      const fragment = new URLSearchParams({
        access_token: session.access_token,
        expires_at: String(session.expires_at),
        expires_in: String(session.expires_in),
        refresh_token: session.refresh_token,
        token_type: session.token_type,
        type: query.type,
      });
      return reply
        .status(303)
        .header('location', `${query.redirect_to.split('#')[0]}#${fragment}`)
        .send();
    }
    return reply.status(200).send({ ...session, user: toGoTrueUser(session.user) });
  }

  @ApiErrors(429)
  @ApiAnswer(200, json.empty)
  @Post('recover')
  @HttpCode(200)
  async recover(@Body() body: RecoverDto, @Ip() ip: string) {
    await this.accounts.recover(body.email, ip);
    return {};
  }

  // GoTrue: emails a nonce that a password change from a session older than 24 hours must carry.
  @ApiErrors(429)
  @ApiAnswer(200, json.empty)
  @Get('reauthenticate')
  @Authenticated('session')
  async reauthenticate(@CurrentCaller() caller: Caller) {
    await this.reauthentication.sendNonce(caller.ctx.userId!);
    return {};
  }

  @ApiErrors(422, 429)
  @ApiAnswer(200, GOTRUE_USER)
  @Put('user')
  @Authenticated('session')
  async update(@CurrentCaller() caller: Caller, @Body() body: UpdateUserDto) {
    return toGoTrueUser(await this.accounts.updateUser(caller.ctx.userId!, caller.ctx.organizationId, caller.sessionId!, body));
  }

  // The spec lists POST /auth/v1/user for the same change.
  @ApiErrors(422, 429)
  @ApiAnswer(200, GOTRUE_USER)
  @Post('user')
  @HttpCode(200)
  @Authenticated('session')
  async updateByPost(@CurrentCaller() caller: Caller, @Body() body: UpdateUserDto) {
    return this.update(caller, body);
  }
}
