// Not an error: the outcome is final and the event is done.
export class Settled extends Error {}
// Worth another try later (e.g. a status callback that arrived before the send committed).
export class NotYet extends Error {}
