import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type EventCause, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { type EnrollmentAnswer, SequencesService } from './sequences.service';

// Commands other contexts send to start and stop a contact's sequences (automation's
// start_sequence and stop_sequences actions), on @nestjs/cqrs's command bus. They write only the
// campaigns' own tables and emit no event, so `cause` is kept for the record only.

export class StartSequence extends Command<EnrollmentAnswer> {
  constructor(
    readonly ctx: RequestContext,
    readonly sequenceId: string,
    readonly contactId: string,
    readonly cause?: EventCause,
  ) {
    super();
  }
}

export class StopSequences extends Command<{ exited: number }> {
  constructor(
    readonly ctx: RequestContext,
    readonly contactId: string,
    readonly cause?: EventCause,
  ) {
    super();
  }
}

// The contact enrolled on the sequence's current version, as the enrolment endpoint does it: a
// sequence that is not active refuses (409), a contact not opted in or without a phone is skipped,
// one already running keeps its run.
@CommandHandler(StartSequence)
export class StartSequenceHandler implements ICommandHandler<StartSequence, EnrollmentAnswer> {
  constructor(private readonly sequences: SequencesService) {}

  execute({ ctx, sequenceId, contactId }: StartSequence): Promise<EnrollmentAnswer> {
    if (!isUuid(sequenceId)) throw NotFound('sequence', String(sequenceId));
    if (!isUuid(contactId)) throw NotFound('contact', String(contactId));
    return this.sequences.enrollAudience(ctx, sequenceId.toLowerCase(), { contactIds: [contactId.toLowerCase()] });
  }
}

// Every running enrolment of the contact exits (`manual`).
@CommandHandler(StopSequences)
export class StopSequencesHandler implements ICommandHandler<StopSequences, { exited: number }> {
  constructor(private readonly sequences: SequencesService) {}

  execute({ ctx, contactId }: StopSequences): Promise<{ exited: number }> {
    if (!isUuid(contactId)) throw NotFound('contact', String(contactId));
    return this.sequences.exitContact(ctx, contactId.toLowerCase());
  }
}
