import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { CompanyService } from '../application/company.service';
import { ApiAnswer } from '@engage/platform';
import { COMPANY_SEARCH, DUPLICATES_OR_MERGE } from './companies.responses';

export class SearchCompaniesDto {
  @ApiProperty() @IsString() @MaxLength(200) searchTerm: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) country?: string;
}

export class DuplicateCompaniesDto {
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @ArrayMaxSize(100) @IsUUID('all', { each: true }) companyIds?: string[];
  @ApiPropertyOptional() @IsOptional() @IsUUID('all') primaryCompanyId?: string;
}

// §4.6 company functions. Response bodies are not shown in the spec: see docs/crm.md.
@ApiTags('companies')
@Controller('functions/v1')
@Authenticated('session', 'api_key')
export class CompaniesController {
  constructor(private readonly companies: CompanyService) {}

  @ApiAnswer(200, COMPANY_SEARCH)
  @Post('search-companies')
  @HttpCode(200)
  async search(@CurrentCaller() caller: Caller, @Body() body: SearchCompaniesDto) {
    return { companies: await this.companies.search(caller.ctx, body.searchTerm, body.country) };
  }

  // Without a merge body: groups of likely duplicates. With {companyIds, primaryCompanyId}: the merge.
  @ApiAnswer(200, DUPLICATES_OR_MERGE)
  @Post('find-duplicate-companies')
  @HttpCode(200)
  async duplicates(@CurrentCaller() caller: Caller, @Body() body: DuplicateCompaniesDto | undefined) {
    if (body?.companyIds === undefined && body?.primaryCompanyId === undefined) return this.companies.findDuplicates(caller.ctx);
    return this.companies.merge(caller.ctx, body.companyIds, body.primaryCompanyId);
  }
}
