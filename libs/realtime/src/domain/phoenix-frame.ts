// Phoenix channel messages as Supabase Realtime speaks them over a websocket. Two framings, chosen by
// the `vsn` query parameter: 1.0.0 sends objects `{topic, event, payload, ref, join_ref}`, 2.0.0
// (realtime-js's default) arrays `[join_ref, ref, topic, event, payload]`. Binary frames of 2.0.0
// carry broadcast pushes only, which this server does not offer.

export type Vsn = '1.0.0' | '2.0.0';
export const VSNS: readonly Vsn[] = ['1.0.0', '2.0.0'];

export interface PhoenixMessage {
  topic: string;
  event: string;
  payload: Record<string, unknown>;
  ref: string | null;
  joinRef: string | null;
}

export class MalformedFrame extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// A ref is the client's counter, sent as a string (older clients send numbers).
function refOf(value: unknown, name: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && value.length <= 64) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  throw new MalformedFrame(`${name} must be a string`);
}

function shaped(topic: unknown, event: unknown, payload: unknown, ref: unknown, joinRef: unknown): PhoenixMessage {
  if (typeof topic !== 'string' || topic.length === 0 || topic.length > 255) throw new MalformedFrame('topic must be a string of 1 to 255 characters');
  if (typeof event !== 'string' || event.length === 0 || event.length > 255) throw new MalformedFrame('event must be a string of 1 to 255 characters');
  if (!isObject(payload)) throw new MalformedFrame('payload must be an object');
  return { topic, event, payload, ref: refOf(ref, 'ref'), joinRef: refOf(joinRef, 'join_ref') };
}

// A text frame from the client; anything else than one message of the framing is MalformedFrame.
export function decodeFrame(vsn: Vsn, text: string): PhoenixMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedFrame('a frame must be JSON');
  }
  if (vsn === '2.0.0') {
    if (!Array.isArray(parsed) || parsed.length !== 5) throw new MalformedFrame('a 2.0.0 frame is [join_ref, ref, topic, event, payload]');
    const [joinRef, ref, topic, event, payload] = parsed;
    return shaped(topic, event, payload, ref, joinRef);
  }
  if (!isObject(parsed)) throw new MalformedFrame('a 1.0.0 frame is {topic, event, payload, ref}');
  return shaped(parsed.topic, parsed.event, parsed.payload, parsed.ref, parsed.join_ref);
}

export function encodeFrame(vsn: Vsn, message: PhoenixMessage): string {
  if (vsn === '2.0.0') return JSON.stringify([message.joinRef, message.ref, message.topic, message.event, message.payload]);
  return JSON.stringify({ topic: message.topic, event: message.event, payload: message.payload, ref: message.ref, join_ref: message.joinRef });
}

// The answer to a push: same topic, ref and join_ref, `{status, response}`.
export function reply(to: PhoenixMessage, status: 'ok' | 'error', response: Record<string, unknown> = {}): PhoenixMessage {
  return { topic: to.topic, event: 'phx_reply', payload: { status, response }, ref: to.ref, joinRef: to.joinRef };
}
