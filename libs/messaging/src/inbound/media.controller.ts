import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { NotFound } from '@engage/shared-kernel';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { ObjectMediaStore } from './object-media-store';

// Re-hosted inbound media kept in the local stand-in for the CDN. Names are SHA-256 of the content:
// capability addresses, usable in <img> without credentials.
@ApiTags('messaging')
@Controller('functions/v1/messaging/media')
export class MediaController {
  constructor(private readonly store: ObjectMediaStore) {}

  @ApiErrors(404)
  @ApiAnswer(200, { type: 'string', format: 'binary' }, 'The file, with its own media type', '*/*')
  @Get(':organizationId/:name')
  async get(@Param('organizationId') organizationId: string, @Param('name') name: string, @Res() reply: FastifyReply) {
    const file = await this.store.read(organizationId, name);
    if (!file) throw NotFound('media');
    void reply
      .header('content-type', file.contentType)
      .header('content-length', file.bytes)
      .header('cache-control', 'private, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(file.body);
  }
}
