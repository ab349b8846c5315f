import type { CommandBus } from '@nestjs/cqrs';
import { AddNote, ChangeContactTags, SetContactField } from '@engage/crm';
import { onlineMemberIds } from '@engage/identity';
import { AssignConversation, type PacedSender } from '@engage/messaging';
import type { Database } from '@engage/platform';
import { type Clock, DomainError, type RequestContext } from '@engage/shared-kernel';
import { renderFor } from '../../domain/dry-run';
import { evaluate, type Snapshot } from '../../domain/evaluator';
import { nextInRotation } from '../../domain/runs';
import type { RuleWebhook } from '../../application/rule-webhook';
import { questionText, readAnswer } from '../domain/answers';
import type { Settings } from '../domain/flow';
import { type AskNode, type BotNode, type Definition, parseTarget } from '../domain/nodes';
import type { SessionStatus } from '../domain/tables';
import { LAST_HANDOFF, MARK_ASKING, SESSION_STATUS } from '../infrastructure/bots.sql';

// A session as its steps see it.
export interface SessionState {
  id: string;
  organization_id: string;
  conversation_id: string;
  contact_id: string | null;
  bot_flow_id: string;
  version: number;
  current_node: string | null;
  variables: Record<string, unknown>;
  retries: number;
}

// What moves a session on: its start, the customer's (gathered) answer, or the ask's timeout.
export type StepInput = { kind: 'start' } | { kind: 'answer'; text: string } | { kind: 'timeout' };

// Where the steps stopped: waiting at an ask, or ended.
export type StepOutcome =
  | { kind: 'wait'; node: AskNode; variables: Record<string, unknown>; retries: number }
  | { kind: 'end'; status: SessionStatus; reason: string; node: string | null; variables: Record<string, unknown>; handedTo?: string };

// The records the steps read (the conversation and contact as /rest/v1 serves them, the moment's facts).
export type ReadRecords = () => Promise<Omit<Snapshot, 'variables'>>;

// A session ended meanwhile (an agent's reply, a stop): its steps stop without saving anything.
export class SessionEnded extends Error {}
class SendRefused extends Error {}

// A bot never runs round more than this many nodes between two customer messages (publishing
// refuses cycles without an ask; this is the backstop).
const MAX_STEPS = 100;

// Runs a session's nodes from where it is until it waits at an ask or ends: messages through
// messaging's paced queue (origin `bot`), contact changes and the hand-off through the CRM's and
// messaging's commands, webhooks through the rules' signed, SSRF-safe sender.
export class BotSteps {
  constructor(
    private readonly db: Database,
    private readonly commands: CommandBus,
    private readonly paced: PacedSender,
    private readonly webhook: RuleWebhook,
    private readonly clock: Clock,
  ) {}

  async run(ctx: RequestContext, session: SessionState, definition: Definition, settings: Settings, input: StepInput, read: ReadRecords): Promise<StepOutcome> {
    const nodes = new Map(definition.nodes.map((node) => [node.id, node]));
    const variables = { ...session.variables };
    let records = await read();
    const snapshot = (): Snapshot => ({ ...records, variables });
    const end = (status: SessionStatus, reason: string, node: string | null, handedTo?: string): StepOutcome => ({
      kind: 'end',
      status,
      reason,
      node,
      variables,
      ...(handedTo ? { handedTo } : {}),
    });
    const send = async (text: string, mediaUrl?: string) => {
      const [row] = await this.db.inTenant(ctx, (tx) => tx.query<{ status: string }>(SESSION_STATUS, [session.id]));
      if (row?.status !== 'active') throw new SessionEnded();
      const sent = await this.paced.send(
        ctx,
        { conversationId: session.conversation_id },
        {
          message: text,
          mediaUrls: mediaUrl ? [mediaUrl] : [],
          author: { origin: 'bot', originId: session.bot_flow_id },
          metadata: { bot_session_id: session.id },
        },
      );
      if (sent.status === 'FAILED') throw new SendRefused(sent.failure ?? 'the message failed');
    };
    // A value saved where a target names: a variable, or the contact through the CRM's commands.
    // false when the CRM refuses it (an answer that does not pass there).
    const save = async (target: string, value: unknown): Promise<boolean> => {
      const parsed = parseTarget(target);
      if (!parsed) return false;
      if (parsed.kind === 'variable') {
        variables[parsed.name] = value;
        return true;
      }
      if (!session.contact_id) return false;
      const field = parsed.name;
      let stored = value;
      if (field === 'emails' || field === 'phones') {
        const list = ((records.contact?.[field] as string[] | undefined) ?? []).map(String);
        if (list.includes(String(value))) return true;
        stored = [...list, String(value)];
      } else if (!field.startsWith('custom_fields.')) {
        stored = String(value);
      }
      try {
        await this.commands.execute(new SetContactField(ctx, session.contact_id, field, stored));
      } catch (error) {
        if (error instanceof DomainError && (error.kind === 'validation' || error.kind === 'conflict')) return false;
        throw error;
      }
      records = await read();
      return true;
    };
    const ask = async (node: AskNode): Promise<StepOutcome> => {
      await this.db.inTenant(ctx, (tx) => tx.execute(MARK_ASKING, [session.id, node.id, this.clock.now()]));
      await send(questionText(node, renderFor(snapshot(), node.text)));
      return { kind: 'wait', node, variables, retries };
    };

    let current = session.current_node;
    let retries = session.retries;
    try {
      const waiting = current === null ? undefined : nodes.get(current);
      if (input.kind === 'answer' && waiting?.type === 'ask') {
        const answer = readAnswer(waiting, input.text);
        if (answer && (waiting.save_as === undefined || (await save(waiting.save_as, answer.value)))) {
          current = answer.next ?? null;
          retries = 0;
        } else if (retries < waiting.max_retries) {
          retries += 1;
          const again = waiting.retry_text ?? settings.unknown_reply ?? questionText(waiting, waiting.text);
          await this.db.inTenant(ctx, (tx) => tx.execute(MARK_ASKING, [session.id, waiting.id, this.clock.now()]));
          await send(renderFor(snapshot(), again));
          return { kind: 'wait', node: waiting, variables, retries };
        } else {
          if (settings.unknown_reply) await send(renderFor(snapshot(), settings.unknown_reply));
          return end('handed_off', 'max_retries', waiting.id);
        }
      } else if (input.kind === 'timeout' && waiting?.type === 'ask') {
        if (waiting.on_timeout === undefined) return end('expired', 'ask_timeout', waiting.id);
        current = waiting.on_timeout;
        retries = 0;
      }
      for (let step = 0; step < MAX_STEPS; step += 1) {
        const node: BotNode | undefined = current === null ? undefined : nodes.get(current);
        if (!node) return end('stopped', `no node "${current}" in version ${session.version}`, current);
        switch (node.type) {
          case 'message':
            await send(renderFor(snapshot(), node.text), node.media_url);
            current = node.next ?? null;
            break;
          case 'ask':
            retries = 0;
            return await ask(node);
          case 'branch': {
            const matched = node.cases.find((item) => evaluate(item.conditions, snapshot()).matched);
            current = (matched ? matched.next : node.default) ?? null;
            break;
          }
          case 'set_field': {
            const value = typeof node.value === 'string' ? renderFor(snapshot(), node.value) : node.value;
            if (!(await save(node.field, value))) return end('stopped', `set_field "${node.id}": ${node.field} refused the value`, node.id);
            current = node.next ?? null;
            break;
          }
          case 'add_tags':
            if (session.contact_id) {
              await this.commands.execute(new ChangeContactTags(ctx, session.contact_id, node.tags, []));
              records = await read();
            }
            current = node.next ?? null;
            break;
          case 'webhook':
            try {
              await this.webhook.post(node.url, webhookBody(session, node.id, variables, records), undefined, session.id);
              current = node.next ?? null;
            } catch {
              current = node.on_error ?? node.next ?? null;
            }
            break;
          case 'handoff': {
            if (node.note && session.contact_id)
              await this.commands.execute(new AddNote(ctx, { contact_id: session.contact_id }, renderFor(snapshot(), node.note)));
            const assignee = node.assignee === 'round_robin' ? await this.nextOnline(ctx, session.bot_flow_id) : node.assignee;
            if (assignee) await this.commands.execute(new AssignConversation(ctx, session.conversation_id, assignee));
            return end('handed_off', 'handoff', node.id, assignee ?? undefined);
          }
          case 'end':
            if (node.text) await send(renderFor(snapshot(), node.text));
            return end('completed', 'end', node.id);
        }
      }
      return end('stopped', 'step_limit', current);
    } catch (error) {
      if (error instanceof SessionEnded) throw error;
      const reason = error instanceof SendRefused ? `send_failed: ${error.message}` : `error: ${error instanceof Error ? error.message : String(error)}`;
      return end('stopped', reason.slice(0, 200), current);
    }
  }

  // The online member after the one this flow's round-robin hand-off chose last; none online: nobody.
  private async nextOnline(ctx: RequestContext, flowId: string): Promise<string | null> {
    return this.db.inTenant(ctx, async (tx) => {
      const online = await onlineMemberIds(tx);
      const [last] = await tx.query<{ handed_to: string }>(LAST_HANDOFF, [flowId]);
      return nextInRotation(online, last?.handed_to ?? null) ?? null;
    });
  }
}

// What a flow's webhook node receives: the session, the node, the variables and the records read.
function webhookBody(session: SessionState, nodeId: string, variables: Record<string, unknown>, records: Omit<Snapshot, 'variables'>): string {
  return JSON.stringify({
    type: 'automation.bot',
    bot_flow: { id: session.bot_flow_id, version: session.version },
    session_id: session.id,
    node_id: nodeId,
    conversation: records.conversation ?? null,
    contact: records.contact ?? null,
    variables,
  });
}
