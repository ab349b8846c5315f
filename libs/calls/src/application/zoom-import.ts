import { randomUUID } from 'node:crypto';
import { type Database, defineJob, enqueueJob, type JobContext, type JobHandler, type ObjectStorage, type OutboundClient, type Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { ZOOM_RECORDING_COMPLETED } from '../calls-events';
import { AUDIO_FILE_TYPES, type ZoomRecordingCompleted } from '../domain/zoom-event';
import { CALL_FAILED } from './pipeline-events';
import { enqueueCallProcessing } from './call-processing.job';
import { ProviderError } from './providers';
import { asProviderError, openDownload } from '../infrastructure/streamed-download';

// The largest meeting audio file imported: as for uploads, a little over 50 MB (about an hour of Zoom's M4A).
export const MAX_MEETING_AUDIO_BYTES = 52 * 1024 * 1024;
const CONTENT_TYPES: Record<string, string> = { m4a: 'audio/mp4', mp3: 'audio/mpeg', wav: 'audio/wav' };
const systemCtx = (organizationId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() });

export interface ZoomImportPayload {
  callRecordId: string;
  downloadUrl: string;
  downloadToken: string | null;
  extension: string;
}

export interface ZoomImportDeps {
  db: Database;
  storage: ObjectStorage;
  outbound: OutboundClient;
  suiteIdOf: (organizationId: string) => Promise<string | null>;
  maxAttempts: number;
}

export const ZOOM_IMPORT_ATTEMPTS = 5;

// Called in the webhook's transaction: a call record (source meeting, status received) per audio
// file of the meeting, each with its import job. A meeting already imported (Zoom delivers again
// when it gets no quick 200) adds nothing. Returns the records created.
export async function recordMeeting(tx: Tx, organizationId: string, event: ZoomRecordingCompleted): Promise<string[]> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`zoom:${organizationId}:${event.meeting.meeting_uuid}`]);
  const [seen] = await tx.query(`SELECT 1 FROM call_records WHERE organization_id = $1 AND source = 'meeting' AND meeting->>'meeting_uuid' = $2 LIMIT 1`, [
    organizationId,
    event.meeting.meeting_uuid,
  ]);
  if (seen) return [];
  const ids: string[] = [];
  for (const file of event.files.filter((f) => AUDIO_FILE_TYPES.has(f.file_type))) {
    const id = randomUUID();
    const meeting = { ...event.meeting, recording_file_id: file.id, recording_type: file.recording_type };
    const duration = event.meeting.duration_minutes === null ? null : Math.min(86400, event.meeting.duration_minutes * 60);
    await tx.query(
      `INSERT INTO call_records (id, organization_id, source, agent_identifier, duration_seconds, call_timestamp, notes, meeting)
       VALUES ($1, $2, 'meeting', $3, $4, coalesce($5::timestamptz, now()), $6, $7)`,
      [id, organizationId, event.meeting.host_email, duration, event.meeting.start_time, event.meeting.topic, JSON.stringify(meeting)],
    );
    const payload: ZoomImportPayload = { callRecordId: id, downloadUrl: file.download_url, downloadToken: event.downloadToken, extension: file.file_extension };
    await enqueueJob(tx, zoomImportJob, payload);
    ids.push(id);
  }
  return ids;
}

// Fetches a meeting's audio file with the event's download token through the SSRF-safe client,
// stores it under <suite_id>/<yyyy>/<mm>/<call_record_id>.<ext>, and sends the record on through
// the pipeline, emitting zoom.recording.completed, in one transaction.
export class ZoomImport implements JobHandler<ZoomImportPayload> {
  constructor(private readonly deps: ZoomImportDeps) {}

  async handle(payload: ZoomImportPayload, job: JobContext): Promise<void> {
    if (!job.organizationId) throw new Error('a Zoom import job belongs to an organization');
    const ctx = systemCtx(job.organizationId);
    try {
      await this.import(ctx, payload);
    } catch (error) {
      const permanent = error instanceof ProviderError && !error.retryable;
      if (!permanent && job.attempt < this.deps.maxAttempts) throw error;
      await this.fail(ctx, payload.callRecordId, permanent ? error.message : `gave up after ${job.attempt} attempts: ${(error as Error).message}`);
    }
  }

  private async import(ctx: RequestContext, payload: ZoomImportPayload): Promise<void> {
    const { db } = this.deps;
    const [row] = await db.inTenant(ctx, (tx) =>
      tx.query<{ status: string; recording_key: string | null; created_at: Date }>('SELECT status, recording_key, created_at FROM call_records WHERE id = $1', [
        payload.callRecordId,
      ]),
    );
    if (!row || row.status !== 'received' || row.recording_key) return;
    const suiteId = await this.deps.suiteIdOf(ctx.organizationId);
    if (!suiteId) throw new ProviderError('the organization has no suite id (organization setting suite_id): the recording cannot be stored', false);
    const ext = /^[a-z0-9]{2,5}$/.test(payload.extension) ? payload.extension : 'm4a';
    const at = row.created_at;
    const key = `${suiteId}/${at.getUTCFullYear()}/${String(at.getUTCMonth() + 1).padStart(2, '0')}/${payload.callRecordId}.${ext}`;
    const contentType = CONTENT_TYPES[ext] ?? 'application/octet-stream';
    const stored = await this.store(payload, key, contentType);
    await db.inTenant(ctx, async (tx) => {
      const [updated] = await tx.query<{ meeting: Record<string, unknown>; created_at: Date }>(
        `UPDATE call_records SET recording_url = $2, recording_key = $3, recording_content_type = $4, recording_bytes = $5, updated_at = now()
          WHERE id = $1 AND status = 'received' AND recording_key IS NULL RETURNING meeting, created_at`,
        [payload.callRecordId, stored.url, stored.key, contentType, stored.bytes],
      );
      if (!updated) return;
      await enqueueCallProcessing(tx, payload.callRecordId);
      const m = updated.meeting;
      const recording = {
        call_record_id: payload.callRecordId,
        organization_id: ctx.organizationId,
        meeting_id: String(m.meeting_id),
        meeting_uuid: String(m.meeting_uuid),
        topic: (m.topic as string | null) ?? null,
        host_id: (m.host_id as string | null) ?? null,
        host_email: (m.host_email as string | null) ?? null,
        start_time: (m.start_time as string | null) ?? null,
        duration_minutes: (m.duration_minutes as number | null) ?? null,
        share_url: (m.share_url as string | null) ?? null,
        recording_url: stored.url,
        created_at: updated.created_at.toISOString(),
      };
      const { organizationId } = ctx;
      const event = ZOOM_RECORDING_COMPLETED.create({ organizationId, aggregateId: payload.callRecordId, payload: { recording, actor_id: null } });
      await tx.emit([event]);
    });
  }

  // Streamed from Zoom into the storage: a file over the limit stops the upload, which leaves nothing.
  private async store(payload: ZoomImportPayload, key: string, contentType: string) {
    const request = {
      url: payload.downloadUrl,
      headers: payload.downloadToken ? { authorization: `Bearer ${payload.downloadToken}` } : undefined,
      maxBytes: MAX_MEETING_AUDIO_BYTES,
      timeoutMs: 300_000,
      tooLarge: `the meeting's audio file is larger than ${MAX_MEETING_AUDIO_BYTES} bytes`,
      answered: "Zoom's download answered",
      unreachable: "the meeting's audio file cannot be downloaded",
    };
    const download = await openDownload(this.deps.outbound, request);
    try {
      return await this.deps.storage.put(key, download.body, { contentType });
    } catch (error) {
      // The download's own failure (too large, cut off) says why; the storage's is retried as it is.
      if (download.body.errored) throw asProviderError(download.body.errored, request);
      throw error;
    }
  }

  private async fail(ctx: RequestContext, id: string, reason: string): Promise<void> {
    const cut = reason.slice(0, 2000);
    await this.deps.db.inTenant(ctx, async (tx) => {
      const [row] = await tx.query<{ updated_at: Date }>(
        `UPDATE call_records SET status = 'failed', failure_reason = $2, updated_at = now() WHERE id = $1 AND status = 'received' RETURNING updated_at`,
        [id, cut],
      );
      if (!row) return;
      const call = {
        id,
        organization_id: ctx.organizationId,
        contact_id: null,
        source: 'meeting' as const,
        status: 'failed' as const,
        analyser: null,
        sentiment: null,
        keywords: [],
        action_items: [],
        summary: null,
        failure_reason: cut,
        completed_at: row.updated_at.toISOString(),
      };
      await tx.emit([CALL_FAILED.create({ organizationId: ctx.organizationId, aggregateId: id, payload: { call, actor_id: null } })]);
    });
  }
}

// Download failures are retried after 30 s, 1, 2 and 4 minutes (the token lasts 24 hours).
export const zoomImportJob = defineJob<ZoomImportPayload>({
  name: 'calls.zoom-import',
  handler: ZoomImport,
  retry: { maxAttempts: ZOOM_IMPORT_ATTEMPTS, baseMs: 30_000, maxMs: 15 * 60_000 },
  leaseMs: 15 * 60_000,
});
