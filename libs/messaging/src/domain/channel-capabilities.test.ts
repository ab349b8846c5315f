import { DomainError } from '@engage/shared-kernel';
import { CHANNEL_CAPABILITIES, decideWindow, META_WINDOW, windowClosesAt } from './channel-capabilities';

const wrote = new Date('2026-11-20T10:00:00.000Z');
const at = (ms: number) => new Date(wrote.getTime() + ms);
const H = 3_600_000;
const refusal = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('not refused');
};

describe('the Meta window rule, with an injected clock', () => {
  it('should allow free-form sends until 23:59:59.999 after the customer wrote, and not at 24:00:00', () => {
    expect(decideWindow(META_WINDOW, wrote, at(24 * H - 1000), false)).toEqual({ send: 'free_form' });
    expect(decideWindow(META_WINDOW, wrote, at(24 * H - 1), false)).toEqual({ send: 'free_form' });
    const closed = refusal(() => decideWindow(META_WINDOW, wrote, at(24 * H), false));
    expect(closed).toMatchObject({
      kind: 'unprocessable',
      code: 'channel.window_closed',
      details: { window: 'standard', closed_at: '2026-11-21T10:00:00.000Z' },
    });
    expect(closed.message).toContain('automated messages may not be sent');
  });

  it("should let a human's reply out with the HUMAN_AGENT tag up to 7 days, never an automated one", () => {
    expect(decideWindow(META_WINDOW, wrote, at(24 * H), true)).toEqual({ send: 'human_agent_tag' });
    expect(decideWindow(META_WINDOW, wrote, at(7 * 24 * H - 1), true)).toEqual({ send: 'human_agent_tag' });
    expect(refusal(() => decideWindow(META_WINDOW, wrote, at(7 * 24 * H), true))).toMatchObject({
      details: { window: 'human_agent', closed_at: '2026-11-27T10:00:00.000Z' },
    });
    expect(refusal(() => decideWindow(META_WINDOW, wrote, at(3 * 24 * H), false))).toMatchObject({ details: { window: 'standard' } });
  });

  it('should refuse a business-initiated first message, and leave channels without a window alone', () => {
    expect(refusal(() => decideWindow(META_WINDOW, null, wrote, true))).toMatchObject({ code: 'channel.window_closed', details: { closed_at: null } });
    expect(decideWindow(CHANNEL_CAPABILITIES.chat_app.window, null, wrote, false)).toEqual({ send: 'free_form' });
    expect(windowClosesAt(CHANNEL_CAPABILITIES.chat_app.window, wrote)).toBeNull();
    expect(windowClosesAt(CHANNEL_CAPABILITIES.instagram.window, wrote)).toEqual(at(24 * H));
  });
});
