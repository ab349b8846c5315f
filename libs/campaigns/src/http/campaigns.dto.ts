import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { BROADCAST_STATUSES } from '../domain/broadcast';

export class BroadcastListQueryDto {
  @ApiProperty({ required: false, enum: BROADCAST_STATUSES }) @IsOptional() @IsIn(BROADCAST_STATUSES) status?: string;
  @ApiProperty({ required: false, minimum: 1, maximum: 200, default: 50 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;
  @ApiProperty({ required: false, minimum: 0, maximum: 10000, default: 0 }) @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(10000) offset?: number;
}
