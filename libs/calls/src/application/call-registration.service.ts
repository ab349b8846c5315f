import type { ContactService } from '@engage/crm';
import { type Caller, memberByEmail } from '@engage/identity';
import type { Database, Tx } from '@engage/platform';
import { Forbidden, NotFound, type RequestContext, toView } from '@engage/shared-kernel';
import { CALL_RECORDS, type CallDirection, type CallRecordRow, type CallRecordView } from '../domain/call-record';
import { CALL_INSERT, INSERT_CALL_RECORD } from '../infrastructure/call-record.sql';
import { CALL_RECEIVED } from './call-received.event';
import { enqueueCallProcessing } from './call-processing.job';

// The optional facts of §4.4 POST /call-recording, validated by the request's DTO.
export interface CallFields {
  contact_id?: string;
  customer_phone?: string;
  agent_identifier?: string;
  duration_seconds?: number;
  call_timestamp?: string;
  direction?: CallDirection;
  notes?: string;
}

// Where the recording is: uploaded by us (key, type and size known) or an address given as is.
export interface Recording {
  url: string;
  key: string | null;
  contentType: string | null;
  bytes: number | null;
}

// §4.4's answer, exactly.
export interface Registered {
  success: true;
  call_record_id: string;
  status: 'received';
  contact_matched: boolean;
  recording_stored: boolean;
}

// Registers a call: the contact (by id, else by the customer's phone in any written form), the agent
// (the signed-in one, or for an API key the member whose e-mail is agent_identifier), the record
// and call.received in one transaction.
export class CallRegistration {
  constructor(
    private readonly db: Database,
    private readonly contacts: ContactService,
  ) {}

  async register(caller: Caller, id: string, fields: CallFields, recording: Recording): Promise<{ answer: Registered; record: CallRecordView }> {
    const { ctx } = caller;
    const contactId = await this.contactOf(ctx, fields);
    const row = await this.db.inTenant(ctx, async (tx) => {
      const agentUserId = caller.kind === 'session' ? ctx.userId : await agentOf(tx, fields.agent_identifier);
      const values = {
        id,
        source: 'mobile',
        contact_id: contactId,
        customer_phone: fields.customer_phone ?? null,
        agent_identifier: fields.agent_identifier ?? null,
        agent_user_id: agentUserId,
        duration_seconds: fields.duration_seconds ?? null,
        call_timestamp: fields.call_timestamp ?? null,
        direction: fields.direction ?? 'inbound',
        notes: fields.notes ?? null,
        recording_url: recording.url,
        recording_key: recording.key,
        recording_content_type: recording.contentType,
        recording_bytes: recording.bytes,
      };
      const [inserted] = await tx.query<CallRecordRow>(INSERT_CALL_RECORD, CALL_INSERT.values(values), {
        violations: { call_records_contact_fkey: () => NotFound('contact', contactId ?? undefined) },
      });
      // Its processing job (transcription, analysis) exists only if the record does.
      await enqueueCallProcessing(tx, id);
      await tx.emit([
        CALL_RECEIVED.create({
          organizationId: ctx.organizationId,
          aggregateId: id,
          payload: { call_record: toView(CALL_RECORDS, inserted), actor_id: ctx.userId },
        }),
      ]);
      return inserted;
    });
    const answer: Registered = {
      success: true,
      call_record_id: row.id,
      status: 'received',
      contact_matched: contactId !== null,
      recording_stored: recording.key !== null,
    };
    return { answer, record: toView(CALL_RECORDS, row) };
  }

  // The given contact must be the organization's (another's reads as not found); without one, the
  // customer's phone finds it when it is on a contact.
  private async contactOf(ctx: RequestContext, fields: CallFields): Promise<string | null> {
    if (fields.contact_id) return (await this.contacts.get(ctx, fields.contact_id)).id;
    if (fields.customer_phone) return (await this.contacts.findByPhone(ctx, fields.customer_phone))?.id ?? null;
    return null;
  }
}

// An API key's call is the member's whose e-mail is agent_identifier (identity's lookup, in this
// transaction); a phone number or an unknown address stays as text only. A deactivated or suspended
// member's account is refused (403).
async function agentOf(tx: Tx, identifier: string | undefined): Promise<string | null> {
  if (!identifier || !identifier.includes('@')) return null;
  const member = await memberByEmail(tx, identifier.trim());
  if (!member) return null;
  if (member.status === 'deactivated') throw Forbidden('account_deactivated', 'The agent’s account is deactivated');
  if (member.status === 'suspended') throw Forbidden('account_suspended', 'The agent’s account is suspended');
  return member.id;
}
