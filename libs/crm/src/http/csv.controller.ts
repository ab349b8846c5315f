import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '@engage/shared-kernel';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { CsvExportService } from '../application/csv-export.service';
import { CsvImportService, IMPORT_MAX_BYTES } from '../application/csv-import.service';
import type { CsvEntity } from '../domain/csv';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { CSV_FILE, IMPORT_JOB, IMPORT_JOBS } from './csv.responses';

export class ExportQueryDto {
  @ApiPropertyOptional({ description: 'comma-separated columns, in output order (default: all)' }) @IsOptional() @IsString() @MaxLength(2000) columns?: string;
}

const MULTIPART_LIMITS = { files: 1, fields: 20, fieldSize: 1024, parts: 21, fileSize: IMPORT_MAX_BYTES, headerPairs: 100 };

// The multipart parser does not end its streams when the connection goes before the body is whole
// (a client gone, or closed by the body timeout's 408, after which only the socket reports it): the
// import would wait for ever, holding its organization's gate slot. `gone` fails instead.
function whenBrokenOff(raw: IncomingMessage): { gone: Promise<never>; forget: () => void } {
  let onClose = (): void => undefined;
  const gone = new Promise<never>((_resolve, reject) => {
    onClose = () => {
      if (!raw.complete) reject(new DomainError('validation', 'import.upload_aborted', 'the upload broke off before the whole file arrived'));
    };
  });
  gone.catch(() => undefined);
  raw.once('aborted', onClose);
  raw.socket?.once('close', onClose);
  const forget = () => {
    // A keep-alive socket outlives the upload.
    raw.off('aborted', onClose);
    raw.socket?.off('close', onClose);
  };
  return { gone, forget };
}

async function multipartFile(request: FastifyRequest): Promise<Readable> {
  const { gone, forget } = whenBrokenOff(request.raw);
  try {
    const part = await Promise.race([request.file({ limits: MULTIPART_LIMITS }), gone]).catch((error: unknown) => {
      if (error instanceof DomainError) throw error;
      throw new DomainError(
        'validation',
        'import.invalid_multipart',
        `the multipart body could not be read: ${error instanceof Error ? error.message.slice(0, 200) : 'malformed'}`,
      );
    });
    if (!part) throw new DomainError('validation', 'import.no_file', 'the multipart body has no file; send the CSV in a field named "file"');
    if (part.fieldname !== 'file') {
      part.file.resume();
      throw new DomainError('validation', 'import.no_file', `the CSV must be in a field named "file", got "${part.fieldname.slice(0, 50)}"`);
    }
    gone.catch((error: Error) => part.file.destroy(error));
    part.file.once('close', forget);
    return part.file;
  } catch (error) {
    forget();
    throw error;
  }
}

// text/csv arrives as a stream; a small text/plain body (already read, within the JSON body limit)
// is accepted too for simple clients; multipart/form-data gives the stream of its `file` field
// (fields before it are skipped, nothing is buffered whole).
async function csvBody(request: FastifyRequest): Promise<Readable> {
  if (request.isMultipart?.()) return multipartFile(request);
  if (request.body instanceof Readable) return request.body;
  if (typeof request.body === 'string') return Readable.from([request.body]);
  throw new DomainError(
    'validation',
    'import.not_csv',
    'send the file as the request body with Content-Type: text/csv, or as the field "file" of multipart/form-data',
  );
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

  @ApiAnswer(201, IMPORT_JOB, 'The finished import job')
  @Post('contacts/import')
  @HttpCode(201)
  async importContacts(@CurrentCaller() caller: Caller, @Req() request: FastifyRequest) {
    return this.imports.run(caller.ctx, 'contacts', await csvBody(request));
  }

  @ApiAnswer(201, IMPORT_JOB, 'The finished import job')
  @Post('companies/import')
  @HttpCode(201)
  async importCompanies(@CurrentCaller() caller: Caller, @Req() request: FastifyRequest) {
    return this.imports.run(caller.ctx, 'companies', await csvBody(request));
  }

  @ApiAnswer(200, IMPORT_JOBS)
  @Get('imports')
  recent(@CurrentCaller() caller: Caller) {
    return this.imports.recent(caller.ctx);
  }

  @ApiErrors(404)
  @ApiAnswer(200, IMPORT_JOB)
  @Get('imports/:id')
  job(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.imports.get(caller.ctx, id);
  }

  @ApiAnswer(200, CSV_FILE, 'The CSV file: a header row, then one row per record', 'text/csv')
  @Get('contacts/export')
  exportContacts(@CurrentCaller() caller: Caller, @Query() query: ExportQueryDto, @Res() reply: FastifyReply) {
    return send(reply, 'contacts', this.exports.stream(caller.ctx, 'contacts', query.columns));
  }

  @ApiAnswer(200, CSV_FILE, 'The CSV file: a header row, then one row per record', 'text/csv')
  @Get('companies/export')
  exportCompanies(@CurrentCaller() caller: Caller, @Query() query: ExportQueryDto, @Res() reply: FastifyReply) {
    return send(reply, 'companies', this.exports.stream(caller.ctx, 'companies', query.columns));
  }
}

function send(reply: FastifyReply, entity: CsvEntity, stream: Readable) {
  return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${entity}.csv"`).send(stream);
}
