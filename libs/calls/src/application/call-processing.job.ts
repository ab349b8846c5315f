import { defineJob, type EnqueueOptions, enqueueJob, type Tx } from '@engage/platform';
import { CallProcessor } from './call-processor';

// Provider errors are retried after 30 s, 1, 2, 4 and 8 minutes; the sixth failure fails the record.
export const CALL_PROCESSING_ATTEMPTS = 6;

// One job per call record. The lease covers the longest run: a 52 MB recording cut into three or
// four pieces under 24 MB at up to five minutes each, the download, the cutting and the analysis.
export const processCallJob = defineJob<{ callRecordId: string }>({
  name: 'calls.process-recording',
  handler: CallProcessor,
  retry: { maxAttempts: CALL_PROCESSING_ATTEMPTS, baseMs: 30_000, maxMs: 15 * 60_000 },
  leaseMs: 30 * 60_000,
});

// In the transaction that creates the call record (status received): processing starts only if it commits.
export function enqueueCallProcessing(tx: Tx, callRecordId: string, options: EnqueueOptions = {}): Promise<void> {
  return enqueueJob(tx, processCallJob, { callRecordId }, options);
}
