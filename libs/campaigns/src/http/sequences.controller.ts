import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { SequencesService } from '../application/sequences.service';
import { SequenceListQueryDto } from './sequences.dto';
import { ENROLLMENT, ENROLLMENT_ANSWER, SEQUENCE, SEQUENCE_PAGE } from './sequences.responses';

// Drip sequences (docs/campaigns.md, "Drip sequences"); enrolments are read through
// /rest/v1/sequence_enrollments.
@ApiTags('campaigns')
@Controller('functions/v1/campaigns/sequences')
@Authenticated('session', 'api_key')
export class SequencesController {
  constructor(private readonly sequences: SequencesService) {}

  @ApiErrors(400, 403, 404, 422)
  @ApiAnswer(201, SEQUENCE)
  @Post()
  create(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    return this.sequences.create(caller.ctx, body);
  }

  @ApiErrors(400)
  @ApiAnswer(200, SEQUENCE_PAGE)
  @Get()
  list(@CurrentCaller() caller: Caller, @Query() query: SequenceListQueryDto) {
    return this.sequences.list(caller.ctx, query);
  }

  @ApiErrors(400, 404)
  @ApiAnswer(200, SEQUENCE)
  @Get(':id')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.sequences.get(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404, 422)
  @ApiAnswer(200, SEQUENCE)
  @Patch(':id')
  update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: unknown) {
    return this.sequences.update(caller.ctx, id, body);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, SEQUENCE)
  @Post(':id/activate')
  @HttpCode(200)
  activate(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.sequences.activate(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, SEQUENCE)
  @Post(':id/pause')
  @HttpCode(200)
  pause(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.sequences.pause(caller.ctx, id);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, ENROLLMENT_ANSWER)
  @Post(':id/enrollments')
  @HttpCode(200)
  enroll(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: unknown) {
    return this.sequences.enroll(caller.ctx, id, body);
  }

  @ApiErrors(400, 403, 404, 409)
  @ApiAnswer(200, ENROLLMENT)
  @Delete(':id/enrollments/:enrollmentId')
  @HttpCode(200)
  exit(@CurrentCaller() caller: Caller, @Param('id') id: string, @Param('enrollmentId') enrollmentId: string) {
    return this.sequences.exit(caller.ctx, id, enrollmentId);
  }
}
