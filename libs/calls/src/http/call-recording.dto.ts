import { BadRequestException } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Max, MaxLength, Min, validate, type ValidationError } from 'class-validator';
import { DomainError } from '@engage/shared-kernel';
import { CALL_DIRECTIONS, CALL_LIMITS, type CallDirection } from '../domain/call-record';
import type { CallFields } from '../application/call-registration.service';

// A multipart field arrives as text: digits become the integer they spell, anything else stays as
// sent (and fails the integer rule).
const integerText = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value);

// §4.4 POST /call-recording, its fields other than `file` (the same rules for JSON and multipart).
export class CallRecordingDto {
  @ApiPropertyOptional({
    description: 'public https address of a recording already on the CDN (ignored when a file is sent)',
    maxLength: CALL_LIMITS.recordingUrl,
  })
  @IsOptional()
  @IsString()
  @MaxLength(CALL_LIMITS.recordingUrl)
  recording_url?: string;

  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() contact_id?: string;

  @ApiPropertyOptional({ description: 'matches the contact by phone (any written form) when contact_id is empty', maxLength: CALL_LIMITS.customerPhone })
  @IsOptional()
  @IsString()
  @MaxLength(CALL_LIMITS.customerPhone)
  customer_phone?: string;

  @ApiPropertyOptional({ description: 'agent e-mail or phone; attributes an X-API-Key call', maxLength: CALL_LIMITS.agentIdentifier })
  @IsOptional()
  @IsString()
  @MaxLength(CALL_LIMITS.agentIdentifier)
  agent_identifier?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: CALL_LIMITS.maxDurationSeconds })
  @IsOptional()
  @Transform(integerText)
  @IsInt()
  @Min(0)
  @Max(CALL_LIMITS.maxDurationSeconds)
  duration_seconds?: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'ISO 8601, default now' }) @IsOptional() @IsISO8601({ strict: true }) call_timestamp?: string;

  @ApiPropertyOptional({ enum: CALL_DIRECTIONS, default: 'inbound' }) @IsOptional() @IsIn(CALL_DIRECTIONS) direction?: CallDirection;

  @ApiPropertyOptional({ maxLength: CALL_LIMITS.notes }) @IsOptional() @IsString() @MaxLength(CALL_LIMITS.notes) notes?: string;
}

const messagesOf = (errors: ValidationError[]): string[] =>
  errors.flatMap((error) => [...Object.values(error.constraints ?? {}), ...messagesOf(error.children ?? [])]);

// Validates the fields as the global pipe would (400 validation_failed naming them). An empty value
// counts as absent (forms send empty fields); a NUL character is refused (PostgreSQL cannot store it).
export async function parseCallRecording(raw: unknown): Promise<CallFields & { recording_url?: string }> {
  const body: unknown = raw ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('validation', 'validation_failed', 'the body must be a JSON object or multipart/form-data');
  }
  const present = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== '' && value !== null));
  const nul = Object.entries(present).find(([, value]) => typeof value === 'string' && value.includes('\u0000'));
  if (nul) throw new DomainError('validation', 'invalid_characters', `${nul[0]} contains a NUL character`, { field: nul[0] });
  const dto = plainToInstance(CallRecordingDto, present);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new BadRequestException(messagesOf(errors));
  return { ...dto };
}
