import { Injectable } from '@nestjs/common';
import type { RecordWriter, Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { SegmentsService } from './segments.service';

// /rest/v1/segments (and the record proxy) write through the segment's checks; bound in the manifest.
@Injectable()
export class SegmentsWriter implements RecordWriter {
  constructor(private readonly segments: SegmentsService) {}
  create = (tx: Tx, ctx: RequestContext, body: Record<string, unknown>) => this.segments.createIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>) => this.segments.updateIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.segments.removeIn(tx, ctx, id);
}
