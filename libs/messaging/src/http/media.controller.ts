import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { NotFound, isUuid } from '@engage/shared-kernel';
import { LocalMediaStore } from '../infrastructure/local-media-store';
import { ApiErrors } from '@engage/platform';

// Re-hosted inbound media (local folder store). Names are SHA-256 of the content: capability
// addresses, usable in <img> without credentials.
@ApiTags('messaging')
@Controller('functions/v1/messaging/media')
export class MediaController {
  constructor(private readonly store: LocalMediaStore) {}

  @ApiErrors(404)
  @Get(':organizationId/:name')
  async get(@Param('organizationId') organizationId: string, @Param('name') name: string, @Res() reply: FastifyReply) {
    const file = isUuid(organizationId) ? await this.store.read(organizationId, name) : undefined;
    if (!file) throw NotFound('media');
    void reply.header('content-type', file.contentType).header('cache-control', 'private, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').send(file.bytes);
  }
}
