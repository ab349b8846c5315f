import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

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

export class SignUpDto {
  @ApiProperty() @IsString() @MaxLength(320) email: string;
  @ApiProperty() @IsString() @MaxLength(1024) password: string;
  @ApiPropertyOptional({ description: 'user metadata: first_name, last_name, organization_name' }) @IsOptional() @IsObject() data?: Record<string, unknown>;
  @ApiPropertyOptional() @IsOptional() gotrue_meta_security?: unknown;
  @ApiPropertyOptional() @IsOptional() code_challenge?: unknown;
  @ApiPropertyOptional() @IsOptional() code_challenge_method?: unknown;
}

export class VerifyQueryDto {
  @ApiProperty() @IsString() @MaxLength(200) token: string;
  @ApiProperty({ enum: ['signup', 'email_change', 'recovery', 'email'] }) @IsIn(['signup', 'email_change', 'recovery', 'email']) type: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) redirect_to?: string;
}

export class RecoverDto {
  @ApiProperty() @IsString() @MaxLength(320) email: string;
  @ApiPropertyOptional() @IsOptional() gotrue_meta_security?: unknown;
  @ApiPropertyOptional() @IsOptional() code_challenge?: unknown;
  @ApiPropertyOptional() @IsOptional() code_challenge_method?: unknown;
}

export class UpdateUserDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(320) email?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(1024) password?: string;
  @ApiPropertyOptional() @IsOptional() @IsObject() data?: Record<string, unknown>;
  @ApiPropertyOptional() @IsOptional() nonce?: unknown;
  @ApiPropertyOptional() @IsOptional() code_challenge?: unknown;
  @ApiPropertyOptional() @IsOptional() code_challenge_method?: unknown;
}
