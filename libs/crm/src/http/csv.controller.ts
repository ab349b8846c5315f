import { Readable } from 'node:stream';
import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '@engage/shared-kernel';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { CsvExportService } from '../application/csv-export.service';
import { CsvImportService } from '../application/csv-import.service';
import type { CsvEntity } from '../domain/csv';

export class ExportQueryDto {
  @ApiPropertyOptional({ description: 'comma-separated columns, in output order (default: all)' }) @IsOptional() @IsString() @MaxLength(2000) columns?: string;
}

// text/csv arrives as a stream; a small text/plain body (already read, within the JSON body limit)
// is accepted too for simple clients.
function csvBody(request: FastifyRequest): Readable {
  if (request.body instanceof Readable) return request.body;
  if (typeof request.body === 'string') return Readable.from([request.body]);
  throw new DomainError('validation', 'import.not_csv', 'send the file as the request body with Content-Type: text/csv');
}

// CSV import (streamed, with a job to follow) and export of contacts and companies.
@ApiTags('csv')
@Controller('functions/v1')
@Authenticated('session', 'api_key')
export class CsvController {
  constructor(
    private readonly imports: CsvImportService,
    private readonly exports: CsvExportService,
  ) {}

  @Post('contacts/import')
  @HttpCode(201)
  importContacts(@CurrentCaller() caller: Caller, @Req() request: FastifyRequest) {
    return this.imports.run(caller.ctx, 'contacts', csvBody(request));
  }

  @Post('companies/import')
  @HttpCode(201)
  importCompanies(@CurrentCaller() caller: Caller, @Req() request: FastifyRequest) {
    return this.imports.run(caller.ctx, 'companies', csvBody(request));
  }

  @Get('imports')
  recent(@CurrentCaller() caller: Caller) {
    return this.imports.recent(caller.ctx);
  }

  @Get('imports/:id')
  job(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.imports.get(caller.ctx, id);
  }

  @Get('contacts/export')
  exportContacts(@CurrentCaller() caller: Caller, @Query() query: ExportQueryDto, @Res() reply: FastifyReply) {
    return send(reply, 'contacts', this.exports.stream(caller.ctx, 'contacts', query.columns));
  }

  @Get('companies/export')
  exportCompanies(@CurrentCaller() caller: Caller, @Query() query: ExportQueryDto, @Res() reply: FastifyReply) {
    return send(reply, 'companies', this.exports.stream(caller.ctx, 'companies', query.columns));
  }
}

function send(reply: FastifyReply, entity: CsvEntity, stream: Readable) {
  return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${entity}.csv"`).send(stream);
}
