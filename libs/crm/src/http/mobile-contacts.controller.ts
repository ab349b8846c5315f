import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ContactService } from '../application/contact.service';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { CONTACT_PAGE, CONTACT_WITH_COMPANY } from './contacts.responses';

export class ContactListQueryDto {
  @ApiProperty({ required: false, default: 1 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000) page?: number;
  @ApiProperty({ required: false, default: 50, maximum: 200 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;
  @ApiProperty({ required: false, description: 'name, or a phone number in any written form' }) @IsOptional() @IsString() @MaxLength(100) search?: string;
}

// §4.4 GET /contacts and /contacts/:id of the mobile API (Bearer token of a signed-in agent).
@ApiTags('mobile-api')
@Controller('functions/v1/mobile-api/contacts')
@Authenticated('session')
export class MobileContactsController {
  constructor(private readonly contacts: ContactService) {}

  @ApiAnswer(200, CONTACT_PAGE)
  @Get()
  list(@CurrentCaller() caller: Caller, @Query() query: ContactListQueryDto) {
    return this.contacts.list(caller.ctx, { page: query.page ?? 1, limit: query.limit ?? 50, search: query.search });
  }

  @ApiErrors(404)
  @ApiAnswer(200, CONTACT_WITH_COMPANY)
  @Get(':id')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.contacts.get(caller.ctx, id);
  }
}
