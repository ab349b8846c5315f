import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database, JobContext, JobHandler, Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { analyseLocally } from '../domain/local-analyser';
import { CALL_ANALYZED, CALL_FAILED, type ProcessedCall } from './pipeline-events';
import { type Analyser, type CallAnalysis, type LanguageHint, ProviderError, type Recording, type Transcriber } from './providers';

export interface CallRow {
  id: string;
  status: string;
  source: 'mobile' | 'meeting';
  contact_id: string | null;
  recording_url: string | null;
  recording_key: string | null;
  recording_content_type: string | null;
  transcription: string | null;
}

// Copies the record's recording into a file under `dir` (a temporary folder of the run).
export interface RecordingReader {
  read(row: CallRow, dir: string): Promise<Recording>;
}

export interface AnalyserChooser {
  analyserFor(organizationId: string): Promise<Analyser>;
}

export interface CallProcessorDeps {
  db: Database;
  // null: TRANSCRIBE_BASE_URL unset.
  transcriber: Transcriber | null;
  analysers: AnalyserChooser;
  recordings: RecordingReader;
  language: LanguageHint;
  maxAttempts: number;
  // Where a run keeps its copy of the recording (a temporary folder in it, removed when the run ends).
  workDir?: string;
}

type Outcome = { status: 'completed' | 'failed'; analysis: CallAnalysis | null; reason: string | null; at: Date };

const FINAL = new Set(['completed', 'failed', 'transcription_unavailable']);
const UNAVAILABLE = 'no transcription provider is configured (TRANSCRIBE_BASE_URL is unset): the recording is kept, not transcribed or analysed';
const systemCtx = (organizationId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() });

// One call record through the pipeline: received → transcribing → analyzing → completed (or failed,
// or transcription_unavailable). Each step is committed before the next starts, so a run that dies
// resumes where it was: a stored transcription is not requested again. Each write names the status
// it moves from, so a run that lost its claim (a worker presumed dead) and comes back writes nothing.
export class CallProcessor implements JobHandler<{ callRecordId: string }> {
  constructor(private readonly deps: CallProcessorDeps) {}

  async handle(payload: { callRecordId: string }, job: JobContext): Promise<void> {
    if (!job.organizationId) throw new Error('a call processing job belongs to an organization');
    const ctx = systemCtx(job.organizationId);
    const [row] = await this.deps.db.inTenant(ctx, (tx) =>
      tx.query<CallRow>(
        `SELECT id, status, source, contact_id, recording_url, recording_key, recording_content_type, transcription
           FROM call_records WHERE id = $1`,
        [payload.callRecordId],
      ),
    );
    if (!row || FINAL.has(row.status)) return;
    try {
      await this.process(ctx, row);
    } catch (error) {
      const permanent = error instanceof ProviderError && !error.retryable;
      if (!permanent && job.attempt < this.deps.maxAttempts) throw error;
      const reason = permanent ? error.message : `gave up after ${job.attempt} attempts: ${(error as Error).message}`;
      await this.fail(ctx, row, reason);
    }
  }

  private async process(ctx: RequestContext, row: CallRow): Promise<void> {
    const { db, transcriber } = this.deps;
    let transcript = row.transcription;
    if (transcript === null) {
      // No provider: said on the record. (A transcription stored earlier is analysed all the same.)
      if (!transcriber) {
        await db.inTenant(ctx, (tx) =>
          tx.execute(`UPDATE call_records SET status = 'transcription_unavailable', failure_reason = $2, updated_at = now() WHERE id = $1 AND status = $3`, [
            row.id,
            UNAVAILABLE,
            row.status,
          ]),
        );
        return;
      }
      const started = await db.inTenant(ctx, (tx) =>
        tx.execute(
          `UPDATE call_records SET status = 'transcribing', attempts = attempts + 1, processing_started_at = coalesce(processing_started_at, now()),
             updated_at = now() WHERE id = $1 AND status IN ('received', 'transcribing')`,
          [row.id],
        ),
      );
      if (started === 0) return;
      const result = await this.transcribe(transcriber, row);
      const stored = await db.inTenant(ctx, (tx) =>
        tx.execute(`UPDATE call_records SET transcription = $2, status = 'analyzing', updated_at = now() WHERE id = $1 AND status = 'transcribing'`, [
          row.id,
          result.text,
        ]),
      );
      if (stored === 0) return;
      transcript = result.text;
    } else {
      await db.inTenant(ctx, (tx) => tx.execute(`UPDATE call_records SET attempts = attempts + 1, updated_at = now() WHERE id = $1`, [row.id]));
    }
    const analysis = transcript.trim() === '' ? localAnalysis('') : await (await this.deps.analysers.analyserFor(ctx.organizationId)).analyse(transcript);
    await db.inTenant(ctx, async (tx) => {
      const done = await tx.query<{ completed_at: Date }>(
        `UPDATE call_records SET analysis = $2, status = 'completed', completed_at = now(), failure_reason = NULL, updated_at = now()
          WHERE id = $1 AND status = 'analyzing' RETURNING completed_at`,
        [row.id, JSON.stringify(analysis)],
      );
      if (done.length === 1) await this.publish(tx, ctx, row, { status: 'completed', analysis, reason: null, at: done[0].completed_at });
    });
  }

  private async transcribe(transcriber: Transcriber, row: CallRow) {
    const dir = await mkdtemp(join(this.deps.workDir ?? tmpdir(), 'engage-call-'));
    try {
      return await transcriber.transcribe(await this.deps.recordings.read(row, dir), this.deps.language);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async fail(ctx: RequestContext, row: CallRow, reason: string): Promise<void> {
    const cut = reason.slice(0, 2000);
    await this.deps.db.inTenant(ctx, async (tx) => {
      const done = await tx.query<{ updated_at: Date }>(
        `UPDATE call_records SET status = 'failed', failure_reason = $2, updated_at = now()
          WHERE id = $1 AND status IN ('received', 'transcribing', 'analyzing') RETURNING updated_at`,
        [row.id, cut],
      );
      if (done.length === 1) await this.publish(tx, ctx, row, { status: 'failed', analysis: null, reason: cut, at: done[0].updated_at });
    });
  }

  private async publish(tx: Tx, ctx: RequestContext, row: CallRow, outcome: Outcome) {
    const { analysis } = outcome;
    const call: ProcessedCall = {
      id: row.id,
      organization_id: ctx.organizationId,
      contact_id: row.contact_id,
      source: row.source,
      status: outcome.status,
      analyser: analysis?.analyser ?? null,
      sentiment: analysis?.sentiment ?? null,
      keywords: analysis?.keywords ?? [],
      action_items: analysis?.action_items ?? [],
      summary: analysis?.summary ?? null,
      failure_reason: outcome.reason,
      completed_at: outcome.at.toISOString(),
    };
    const contract = outcome.status === 'completed' ? CALL_ANALYZED : CALL_FAILED;
    await tx.emit([contract.create({ organizationId: ctx.organizationId, aggregateId: row.id, payload: { call, actor_id: null } })]);
  }
}

// The local heuristic analyser as an Analyser result: sentiment and keywords, nothing a model would add.
export function localAnalysis(transcript: string): CallAnalysis {
  const { sentiment, keywords } = analyseLocally(transcript);
  return { analyser: 'local-heuristic', model: null, sentiment, keywords, action_items: [], summary: null };
}
