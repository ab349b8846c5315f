import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { EMAIL_ADDRESS, EMAIL_MAX_LENGTH, type Role, ROLES } from '@engage/shared-kernel';

// DTOs bound types and sizes; the service applies the rules (who may grant what, password policy).
export class InviteMemberDto {
  @ApiProperty({ example: 'new.agent@example.com' })
  @IsString()
  @MaxLength(EMAIL_MAX_LENGTH)
  @Matches(EMAIL_ADDRESS, { message: 'email must be an email' })
  email: string;
  @ApiProperty({ enum: ROLES }) @IsIn(ROLES) role: Role;
}

export class ChangeRoleDto {
  @ApiProperty({ enum: ROLES }) @IsIn(ROLES) role: Role;
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'the token from the emailed link' }) @IsString() @MinLength(1) @MaxLength(200) token: string;
  @ApiProperty({ description: 'a new password, or the current one when an account with this email exists' }) @IsString() @MaxLength(1024) password: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) first_name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) last_name?: string;
}

export class InvitationTokenQueryDto {
  @ApiProperty() @IsString() @MinLength(1) @MaxLength(200) token: string;
}
