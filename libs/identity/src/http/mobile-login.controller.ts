import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SessionService } from '../application/session.service';
import { MobileLoginDto } from './auth.dto';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { MOBILE_LOGIN } from './auth.responses';

// §4.4 POST /login: 401 for bad credentials, 403 for a deactivated or suspended account.
@ApiTags('mobile-api')
@Controller('functions/v1/mobile-api')
export class MobileLoginController {
  constructor(private readonly sessions: SessionService) {}

  @ApiErrors(401)
  @ApiAnswer(200, MOBILE_LOGIN)
  @Post('login')
  @HttpCode(200)
  async login(@Body() body: MobileLoginDto, @Ip() ip: string) {
    const session = await this.sessions.signInWithPassword(body.email, body.password, ip);
    const { user } = session;
    return {
      access_token: session.access_token,
      refresh_token: session.refresh_token,
      expires_in: session.expires_in,
      user: {
        id: user.id,
        first_name: user.first_name,
        last_name: user.last_name,
        email: user.email,
        organization_id: user.organization_id,
        avatar_url: user.avatar_url,
      },
    };
  }
}
