import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import type { Caller } from '../application/authenticator';
import { OrganizationService } from '../application/organization.service';
import { OrganizationSettings } from '../application/organization-settings';
import { Authenticated, CurrentCaller } from './auth.guard';
import { ORGANIZATION_SETTINGS_CHANGE, ORGANIZATION_SETTINGS_VIEW } from './organization-settings.responses';

// Settings → Organization (docs/identity.md, "Organization settings"): every member and the
// organization's API keys read; OWNER, ADMIN and API keys change. The body is checked by the
// settings' declarations (the admin CLI's checks), not by a DTO.
@ApiTags('organization')
@Controller('functions/v1/organization/settings')
@Authenticated('session', 'api_key')
export class OrganizationSettingsController {
  constructor(
    private readonly organizations: OrganizationService,
    private readonly settings: OrganizationSettings,
  ) {}

  @ApiAnswer(200, ORGANIZATION_SETTINGS_VIEW)
  @Get()
  show(@CurrentCaller() caller: Caller) {
    return this.settings.view(caller.ctx);
  }

  @ApiErrors(400, 403)
  @ApiAnswer(200, ORGANIZATION_SETTINGS_VIEW)
  @ApiBody({ schema: ORGANIZATION_SETTINGS_CHANGE, description: 'the settings to change: a value sets one, null removes it; the others stay' })
  @Patch()
  async change(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    await this.organizations.changeSettings(caller.ctx, body);
    return this.settings.view(caller.ctx);
  }
}
