import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiKeyService } from '../application/api-key.service';
import type { Caller } from '../application/authenticator';
import { Authenticated, CurrentCaller } from './auth.guard';
import { CreateApiKeyDto } from './auth.dto';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { API_KEY_CREATED, API_KEYS } from './team.responses';

// Settings → API Keys: OWNER and ADMIN only; the full key appears once, in the creation response.
@ApiTags('api-keys')
@Controller('functions/v1/api-keys')
@Authenticated('session')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeyService) {}

  @ApiAnswer(201, API_KEY_CREATED)
  @Post()
  @HttpCode(201)
  create(@CurrentCaller() caller: Caller, @Body() body: CreateApiKeyDto) {
    return this.keys.create(caller.ctx, body.name);
  }

  @ApiAnswer(200, API_KEYS)
  @Get()
  async list(@CurrentCaller() caller: Caller) {
    return { api_keys: await this.keys.list(caller.ctx) };
  }

  @ApiErrors(404)
  @Delete(':id')
  @HttpCode(204)
  async revoke(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    await this.keys.revoke(caller.ctx, id);
  }
}
