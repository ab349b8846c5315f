import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

// Bodies are checked in the services (GoTrue's own messages); DTOs only bound sizes and types.
export class TokenBodyDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(320) email?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(1024) password?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(200) refresh_token?: string;
  // supabase-js sends these along; accepted and ignored.
  @ApiPropertyOptional() @IsOptional() gotrue_meta_security?: unknown;
  @ApiPropertyOptional() @IsOptional() @IsString() phone?: string;
}

export class GrantQueryDto {
  @ApiProperty({ enum: ['password', 'refresh_token'] })
  @IsIn(['password', 'refresh_token'], { message: 'grant_type must be password or refresh_token' })
  grant_type: 'password' | 'refresh_token';
}

export class LogoutQueryDto {
  @ApiPropertyOptional({ enum: ['global', 'local', 'others'] })
  @IsOptional()
  @IsIn(['global', 'local', 'others'])
  scope?: 'global' | 'local' | 'others';
}

export class MobileLoginDto {
  @ApiProperty() @IsString() @MaxLength(320) email: string;
  @ApiProperty() @IsString() @MaxLength(1024) password: string;
}

export class CreateApiKeyDto {
  @ApiProperty() @IsString() @MaxLength(100) name: string;
}
