import { CommandBus } from '@nestjs/cqrs';
import { StartSequence, StopSequences } from '@engage/campaigns';
import { AddNote, AssignDealOwner, ChangeContactTags, CreateTask, SetContactField, SetDealStage } from '@engage/crm';
import { onlineMemberIds } from '@engage/identity';
import { AssignConversation, type PacedSender, SetConversationStatus } from '@engage/messaging';
import type { Database } from '@engage/platform';
import type { Clock, DomainEvent, EventCause, RequestContext } from '@engage/shared-kernel';
import type { Action } from '../domain/actions';
import { ACTION_TARGETS, type SubjectType } from '../domain/catalogue';
import { renderFor } from '../domain/dry-run';
import type { Snapshot } from '../domain/evaluator';
import { type ActionOutcome, nextInRotation } from '../domain/runs';
import { LAST_ROUND_ROBIN } from '../infrastructure/automation.sql';
import type { BotRuntime } from '../bots/application/bot-runtime';

// A send_webhook action's delivery, handed to a job (rule-webhook.job.ts) when the run's outcome
// is stored: the action's position, its URL, its secret as sealed, and the body.
export interface WebhookDelivery {
  index: number;
  url: string;
  secret: string | null;
  body: string;
}

export interface RunAllResult {
  outcomes: ActionOutcome[];
  deliveries: WebhookDelivery[];
  resumeAt?: Date;
}

// One run's circumstances, as its actions see them.
export interface RunContext {
  ctx: RequestContext;
  rule: { id: string; name: string; action_secrets: (string | null)[] };
  runId: string;
  event: DomainEvent;
  subject: { type: SubjectType; id: string };
  snapshot: Snapshot;
  // What the events of the actions carry (the loop guard).
  cause: EventCause;
}

// A task's title is at most this long (the CRM's limit); a longer rendered title is cut.
const TASK_TITLE_MAX = 200;

// An action that cannot be done here and now, said in words for the run log.
class ActionRefused extends Error {}

// Runs a rule's actions in order through an exhaustive switch: changes to other contexts' records
// as commands on the command bus (the owning context's rules and events), messages through
// messaging's paced queue (origin `rule`). A failed action is recorded and the next one runs.
export class RuleActions {
  constructor(
    private readonly db: Database,
    private readonly commands: CommandBus,
    private readonly paced: PacedSender,
    private readonly bots: Pick<BotRuntime, 'startByRule'>,
    private readonly clock: Clock,
  ) {}

  // The actions from `from` on, up to and including the first wait: their outcomes (one per action,
  // in order), the webhooks to deliver (each outcome `pending` until its delivery job ends), and when
  // a wait stopped them, the time the rest is due (resumeAt).
  async runAll(actions: readonly Action[], run: RunContext, from = 0): Promise<RunAllResult> {
    const outcomes: ActionOutcome[] = [];
    const deliveries: WebhookDelivery[] = [];
    for (let index = from; index < actions.length; index += 1) {
      const action = actions[index];
      if (action.type === 'wait') {
        const resumeAt = new Date(this.clock.now().getTime() + action.minutes * 60_000);
        outcomes.push({ type: 'wait', status: 'succeeded', result: { resume_at: resumeAt.toISOString() } });
        return { outcomes, deliveries, resumeAt };
      }
      if (action.type === 'send_webhook') {
        const sealed = run.rule.action_secrets[index];
        deliveries.push({ index, url: action.url, secret: typeof sealed === 'string' ? sealed : null, body: webhookBody(run) });
        outcomes.push({ type: action.type, status: 'pending' });
        continue;
      }
      outcomes.push(await this.runOne(action, run));
    }
    return { outcomes, deliveries };
  }

  private async runOne(action: Action, run: RunContext): Promise<ActionOutcome> {
    const target = ACTION_TARGETS[action.type];
    if (target !== null && !run.snapshot[target]) return { type: action.type, status: 'skipped', error: `there is no ${target} to act on` };
    try {
      const result = await this.perform(action, run);
      return { type: action.type, status: 'succeeded', ...(result ? { result } : {}) };
    } catch (error) {
      return { type: action.type, status: 'failed', error: reasonOf(error) };
    }
  }

  private async perform(action: Action, run: RunContext): Promise<Record<string, unknown> | undefined> {
    const { ctx, snapshot, cause } = run;
    const id = (record: 'conversation' | 'contact' | 'deal') => snapshot[record]?.id as string;
    switch (action.type) {
      case 'send_message': {
        const sent = await this.paced.send(
          ctx,
          { conversationId: id('conversation') },
          {
            message: renderFor(snapshot, action.text),
            mediaUrls: action.media_url ? [action.media_url] : [],
            author: { origin: 'rule', originId: run.rule.id },
            metadata: { automation_run_id: run.runId },
          },
        );
        if (sent.status === 'FAILED') throw new ActionRefused(sent.failure ?? 'the message failed');
        return { message_ids: sent.messageIds, status: sent.status.toLowerCase() };
      }
      case 'add_contact_tags':
      case 'remove_contact_tags': {
        const [add, remove] = action.type === 'add_contact_tags' ? [action.tags, []] : [[], action.tags];
        const { changed } = await this.commands.execute(new ChangeContactTags(ctx, id('contact'), add, remove, cause));
        return { changed };
      }
      case 'set_contact_field': {
        const value = typeof action.value === 'string' ? renderFor(snapshot, action.value) : action.value;
        const { changed } = await this.commands.execute(new SetContactField(ctx, id('contact'), action.field, value, cause));
        return { changed };
      }
      case 'set_conversation_status':
        await this.commands.execute(new SetConversationStatus(ctx, id('conversation'), action.status, cause));
        return undefined;
      case 'assign_conversation': {
        const roundRobin = action.user_id === 'round_robin';
        const assignee = roundRobin ? await this.nextOnline(ctx, run.rule.id, action.type) : action.user_id;
        await this.commands.execute(new AssignConversation(ctx, id('conversation'), assignee, cause));
        return { assignee_id: assignee, ...(roundRobin ? { round_robin: true } : {}) };
      }
      case 'add_note': {
        const on = snapshot.deal ? { deal_id: id('deal') } : snapshot.contact ? { contact_id: id('contact') } : undefined;
        if (!on) throw new ActionRefused('there is no contact or deal to note on');
        const note = await this.commands.execute(new AddNote(ctx, on, renderFor(snapshot, action.text), cause));
        return { note_id: note.id };
      }
      case 'send_webhook':
        // runAll hands a webhook to its delivery job before it gets here.
        throw new ActionRefused('a webhook is delivered by a job, not in line');
      case 'set_deal_stage': {
        const { deal, changed } = await this.commands.execute(new SetDealStage(ctx, id('deal'), action.stage, cause));
        return { stage: deal.stage, changed };
      }
      case 'assign_deal_owner': {
        const roundRobin = action.user_id === 'round_robin';
        const owner = roundRobin ? await this.nextOnline(ctx, run.rule.id, action.type) : action.user_id;
        const { changed } = await this.commands.execute(new AssignDealOwner(ctx, id('deal'), owner, cause));
        return { owner_id: owner, changed, ...(roundRobin ? { round_robin: true } : {}) };
      }
      case 'create_task': {
        const on = { ...(snapshot.contact ? { contact_id: id('contact') } : {}), ...(snapshot.deal ? { deal_id: id('deal') } : {}) };
        if (!on.contact_id && !on.deal_id) throw new ActionRefused('there is no contact or deal to link the task to');
        const title = renderFor(snapshot, action.title).slice(0, TASK_TITLE_MAX);
        const dueAt = new Date(Date.now() + action.due_in_minutes * 60_000).toISOString();
        const task = await this.commands.execute(new CreateTask(ctx, on, title, dueAt, action.assignee_id ?? null, cause));
        return { task_id: task.id };
      }
      case 'start_bot': {
        const started = await this.bots.startByRule(ctx, action.bot_flow_id, id('conversation'), (snapshot.contact?.id as string | undefined) ?? null);
        return { session_id: started.session_id, status: started.status };
      }
      case 'start_sequence': {
        const answer = await this.commands.execute(new StartSequence(ctx, action.sequence_id, id('contact'), cause));
        if (answer.enrolled === 0 && answer.already_enrolled === 0) {
          throw new ActionRefused(answer.skipped.no_opt_in > 0 ? 'the contact has not opted in' : 'the contact has no phone number');
        }
        return { enrolled: answer.enrolled === 1, already_enrolled: answer.already_enrolled === 1 };
      }
      case 'stop_sequences': {
        const { exited } = await this.commands.execute(new StopSequences(ctx, id('contact'), cause));
        return { exited };
      }
      case 'wait':
        // runAll pauses the run at a wait before it gets here.
        throw new ActionRefused('a wait is run by the engine, not as an action');
    }
  }

  // The online member after the one this rule's round robin (of this action type) last chose.
  private async nextOnline(ctx: RequestContext, ruleId: string, type: string): Promise<string> {
    const chosen = await this.db.inTenant(ctx, async (tx) => {
      const online = await onlineMemberIds(tx);
      const [last] = await tx.query<{ assignee_id: string | null }>(LAST_ROUND_ROBIN, [ruleId, type]);
      return nextInRotation(online, last?.assignee_id ?? null);
    });
    if (!chosen) throw new ActionRefused('round robin: no member of the organization is online');
    return chosen;
  }
}

// What a rule's webhook receives: the event, the rule and run, and the records the rule read.
export function webhookBody(run: RunContext): string {
  const { event, snapshot } = run;
  const records = Object.fromEntries((['message', 'conversation', 'contact', 'deal'] as const).flatMap((k) => (snapshot[k] ? [[k, snapshot[k]]] : [])));
  return JSON.stringify({
    type: 'automation.rule',
    rule: { id: run.rule.id, name: run.rule.name },
    run_id: run.runId,
    event: { id: event.id, type: event.type, occurred_at: event.occurredAt },
    subject: run.subject,
    records,
  });
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const text = code && !message.startsWith(code) && !(error instanceof ActionRefused) ? `${code}: ${message}` : message;
  return text.slice(0, 1000);
}
