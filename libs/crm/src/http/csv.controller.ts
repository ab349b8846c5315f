import type { IncomingMessage } from 'node:http';
import { finished, PassThrough, Readable } from 'node:stream';
import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '@engage/shared-kernel';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { CsvExportService } from '../application/csv-export.service';
import { CsvImportService, IMPORT_MAX_BYTES } from '../application/csv-import.service';
import type { CsvEntity } from '../domain/csv';
import { ApiAnswer, ApiErrors, bodySignal, unlessAborted, watchMultipartEnd } from '@engage/platform';
import { CSV_FILE, IMPORT_JOB, IMPORT_JOBS } from './csv.responses';

export class ExportQueryDto {
  @ApiPropertyOptional({ description: 'comma-separated columns, in output order (default: all)' }) @IsOptional() @IsString() @MaxLength(2000) columns?: string;
}

const MULTIPART_LIMITS = { files: 1, fields: 20, fieldSize: 1024, parts: 21, fileSize: IMPORT_MAX_BYTES, headerPairs: 100 };

const brokenOff = (reason: unknown) =>
  new DomainError(
    'validation',
    'import.upload_aborted',
    `the upload broke off before the whole file arrived${reason instanceof Error ? ` (${reason.message})` : ''}`,
  );
const cutOff = (what: string) => new DomainError('validation', 'import.invalid_multipart', `the multipart body ended before its closing boundary: ${what}`);

// The file part as a stream the import owns, which fails with a reason of ours whenever the part
// cannot be read to its end: the body ended without the part's closing delimiter (the parser then
// emits an error, or destroys the part before the import reads it, which the parser reports to
// nobody), or it stopped arriving or its connection went (the platform's body signal).
function fileOf(raw: IncomingMessage, file: Readable, signal: AbortSignal): Readable {
  const out = new PassThrough();
  // The import may start reading after it failed: it reads the failure from the stream's state.
  out.on('error', () => undefined);
  const fail = (error: DomainError) => {
    file.unpipe(out);
    if (!out.destroyed) out.destroy(error);
  };
  const onAbort = () => fail(brokenOff(signal.reason));
  if (signal.aborted) {
    onAbort();
    return out;
  }
  signal.addEventListener('abort', onAbort, { once: true });
  out.once('close', () => signal.removeEventListener('abort', onAbort));
  finished(file, (error) => {
    if (!error) return;
    if (signal.aborted || !raw.complete) fail(brokenOff(signal.reason));
    else fail(cutOff('the file was cut off'));
  });
  file.pipe(out);
  return out;
}

// The stream of the `file` field. The parser does not end its streams when the connection goes
// before the body has been read (a client gone, or closed by the body watch's 408, after which only
// the socket reports it), nor answer at all for a request already gone when the handler starts
// (one that waited for a gate slot): every wait here is raced against the body signal, so the
// import ends and its organization's gate slot comes back.
async function multipartFile(request: FastifyRequest): Promise<Readable> {
  const signal = bodySignal(request.raw);
  const pending = request.file({ limits: MULTIPART_LIMITS });
  const whole = watchMultipartEnd(request.raw);
  const part = await unlessAborted(pending, signal).catch((error: unknown) => {
    if (signal.aborted) throw brokenOff(signal.reason);
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      'validation',
      'import.invalid_multipart',
      `the multipart body could not be read: ${error instanceof Error ? error.message.slice(0, 200) : 'malformed'}`,
    );
  });
  if (!part) {
    if (!whole()) throw cutOff('no whole file field arrived');
    throw new DomainError('validation', 'import.no_file', 'the multipart body has no file; send the CSV in a field named "file"');
  }
  if (part.fieldname !== 'file') {
    part.file.resume();
    throw new DomainError('validation', 'import.no_file', `the CSV must be in a field named "file", got "${part.fieldname.slice(0, 50)}"`);
  }
  return fileOf(request.raw, part.file, signal);
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
