import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { KEY_SCOPES, NUDGE_CHANNEL_KINDS, PROVIDERS, TRIGGER_HOURS } from '../domain/settings';
import { MAX_NUDGE_CHARACTERS } from '../domain/draft-rules';
import { NUDGE_STATUSES } from '../domain/nudge';

// PUT /functions/v1/reengagement/settings: every field optional (absent keeps the stored value).
export class ReengagementSettingsDto {
  @ApiProperty({ required: false }) @IsOptional() @IsBoolean() enabled?: boolean;
  @ApiProperty({ required: false, enum: PROVIDERS }) @IsOptional() @IsIn(PROVIDERS) provider?: 'default' | 'custom';
  @ApiProperty({ required: false, nullable: true, writeOnly: true, description: 'the customer’s own AI key (write-only, stored sealed); null removes it' })
  @IsOptional()
  @IsString()
  @Matches(/^[\x21-\x7e]{8,4096}$/, { message: 'custom_key must be 8 to 4096 printable characters without spaces' })
  custom_key?: string | null;
  @ApiProperty({ required: false, nullable: true, description: 'an OpenAI-compatible API root for the customer’s key; null: the platform’s AI_BASE_URL' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  custom_base_url?: string | null;
  @ApiProperty({ required: false, enum: KEY_SCOPES }) @IsOptional() @IsIn(KEY_SCOPES) key_scope?: 'all' | 'reengagement';
  @ApiProperty({ required: false }) @IsOptional() @IsBoolean() fallback_to_default?: boolean;
  @ApiProperty({ required: false, description: 'true: drafts wait for an agent; false: sent at once' }) @IsOptional() @IsBoolean() approval_mode?: boolean;
  @ApiProperty({ required: false, minimum: TRIGGER_HOURS.min, maximum: TRIGGER_HOURS.max, default: TRIGGER_HOURS.default })
  @IsOptional()
  @IsInt()
  @Min(TRIGGER_HOURS.min)
  @Max(TRIGGER_HOURS.max)
  trigger_hours?: number;
  @ApiProperty({ required: false, isArray: true, enum: NUDGE_CHANNEL_KINDS })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(NUDGE_CHANNEL_KINDS.length * 2)
  @IsIn(NUDGE_CHANNEL_KINDS, { each: true })
  channels?: string[];
  @ApiProperty({ required: false, maxLength: 4000 }) @IsOptional() @IsString() @MaxLength(4000) guidelines?: string;
}

export class DraftListQueryDto {
  @ApiProperty({ required: false, enum: NUDGE_STATUSES }) @IsOptional() @IsIn(NUDGE_STATUSES) status?: string;
  @ApiProperty({ required: false, default: 1 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000) page?: number;
  @ApiProperty({ required: false, default: 50, maximum: 200 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;
}

export class DraftEditDto {
  @ApiProperty({ maxLength: MAX_NUDGE_CHARACTERS, description: 'the text sent instead of the AI’s' })
  @IsString()
  @Matches(/\S/, { message: 'text must not be empty' })
  @MaxLength(MAX_NUDGE_CHARACTERS)
  text: string;
}
