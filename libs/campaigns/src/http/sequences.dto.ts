import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { SEQUENCE_STATUSES } from '../domain/sequence';

export class SequenceListQueryDto {
  @ApiProperty({ required: false, enum: SEQUENCE_STATUSES }) @IsOptional() @IsIn(SEQUENCE_STATUSES) status?: string;
  @ApiProperty({ required: false, minimum: 1, maximum: 200, default: 50 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;
  @ApiProperty({ required: false, minimum: 0, maximum: 10000, default: 0 }) @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(10000) offset?: number;
}
