import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import {
  assertAllowed,
  Authenticated,
  ORGANIZATION_SETTINGS_MANAGE,
  type Caller,
  CurrentCaller,
  OrganizationService,
  OrganizationSettings,
} from '@engage/identity';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { ZOOM_SETTINGS } from './calls.responses';

export class ZoomSecretTokenDto {
  @ApiProperty({ description: "the Secret Token of the organization's Zoom app (shown once in Zoom's Marketplace)", minLength: 8, maxLength: 256 })
  @IsString()
  @Matches(/^[\x21-\x7e]{8,256}$/, { message: 'secret_token must be 8 to 256 printable characters without spaces' })
  secret_token: string;
}

// Settings → Integrations → Zoom: OWNER and ADMIN set the secret token of their Zoom app (sealed,
// never shown again); the answer says whether one is set and the address to give Zoom.
@ApiTags('calls')
@Controller('functions/v1/zoom-settings')
@Authenticated('session')
export class ZoomSettingsController {
  constructor(
    private readonly organizations: OrganizationService,
    private readonly settings: OrganizationSettings,
  ) {}

  @ApiErrors(403)
  @ApiAnswer(200, ZOOM_SETTINGS)
  @Get()
  async show(@CurrentCaller() caller: Caller) {
    assertAllowed(caller.ctx.role, ORGANIZATION_SETTINGS_MANAGE);
    return this.view(caller.ctx.organizationId);
  }

  @ApiErrors(400, 403)
  @ApiAnswer(200, ZOOM_SETTINGS)
  @Put()
  async set(@CurrentCaller() caller: Caller, @Body() body: ZoomSecretTokenDto) {
    assertAllowed(caller.ctx.role, ORGANIZATION_SETTINGS_MANAGE);
    await this.organizations.setSetting(caller.ctx.organizationId, 'zoom_secret_token', body.secret_token);
    return this.view(caller.ctx.organizationId);
  }

  @ApiErrors(403)
  @Delete()
  @HttpCode(204)
  async clear(@CurrentCaller() caller: Caller): Promise<void> {
    assertAllowed(caller.ctx.role, ORGANIZATION_SETTINGS_MANAGE);
    await this.organizations.clearSetting(caller.ctx.organizationId, 'zoom_secret_token');
  }

  private async view(organizationId: string) {
    const secret = await this.settings.zoomSecretToken(organizationId);
    return { secret_token_set: Boolean(secret), webhook_path: `/functions/v1/zoom-webhook/${organizationId}` };
  }
}
