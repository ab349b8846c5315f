import { randomUUID } from 'node:crypto';
import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Authenticated, type Caller, CurrentCaller, OrganizationSettings } from '@engage/identity';
import { ApiAnswer, ApiErrors, OBJECT_STORAGE, type ObjectStorage, type OutboundClient } from '@engage/platform';
import { CLOCK, type Clock, DomainError } from '@engage/shared-kernel';
import { CallRegistration, type Registered } from '../application/call-registration.service';
import { vetRecordingUrl } from '../application/recording-url';
import { recordingKey } from '../domain/recording-key';
import { parseCallRecording, CallRecordingDto } from './call-recording.dto';
import { readMultipartCall, type StoredRecording } from './recording-upload';
import { CALL_REGISTERED } from './calls.responses';

export const CALLS_OUTBOUND = Symbol('CALLS_OUTBOUND');

// §4.4 POST /call-recording of the mobile API: a recording file (multipart, streamed to the CDN) or
// the address of one already there (JSON), with the call's facts. docs/calls.md.
@ApiTags('mobile-api')
@Controller('functions/v1/mobile-api')
@Authenticated('session', 'api_key')
export class CallRecordingController {
  constructor(
    private readonly calls: CallRegistration,
    private readonly settings: OrganizationSettings,
    @Inject(OBJECT_STORAGE) private readonly storage: ObjectStorage,
    @Inject(CALLS_OUTBOUND) private readonly outbound: OutboundClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @ApiErrors(400, 401, 403, 404, 413)
  @ApiAnswer(200, CALL_REGISTERED)
  @Post('call-recording')
  @HttpCode(200)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({ type: CallRecordingDto, description: 'multipart/form-data: these fields plus `file` (the recording, at most 50 MB)' })
  async register(@CurrentCaller() caller: Caller, @Req() request: FastifyRequest): Promise<Registered> {
    const id = randomUUID();
    let stored: StoredRecording | undefined;
    let raw: unknown = request.body;
    if (request.isMultipart?.()) {
      ({ fields: raw, stored } = await readMultipartCall(request, this.storage, async (format) =>
        recordingKey(await this.suiteOf(caller), this.clock.now(), id, format.ext),
      ));
    }
    try {
      const fields = await parseCallRecording(raw);
      if (!stored && !fields.recording_url) {
        throw new DomainError('validation', 'call.no_recording', 'send the recording as the multipart field "file", or its address as recording_url');
      }
      // A file wins over an address sent with it.
      const recording = stored
        ? { url: stored.url, key: stored.key, contentType: stored.format.contentType, bytes: stored.bytes }
        : { url: await vetRecordingUrl(this.outbound, fields.recording_url!), key: null, contentType: null, bytes: null };
      const { recording_url: _ignored, ...facts } = fields;
      return (await this.calls.register(caller, id, facts, recording)).answer;
    } catch (error) {
      // Nothing stays stored for a call that was not registered.
      if (stored) await this.storage.remove(stored.key).catch(() => undefined);
      throw error;
    }
  }

  // The organization's suite id names its folder on the CDN; uploads need it (§4.4).
  private async suiteOf(caller: Caller): Promise<string> {
    const suite = await this.settings.plain(caller.ctx.organizationId, 'suite_id');
    if (!suite) {
      throw new DomainError('validation', 'call.no_suite_id', 'the organization has no suite id configured (organization setting suite_id); uploads need it');
    }
    return suite;
  }
}
