import { missingBefore, onboardingState } from './onboarding-steps';

const facts = { emailVerified: false, subscribed: false, channelsReady: false, completed: false };

describe('onboarding steps', () => {
  it('should point at the first step not done and list the required ones missing', () => {
    expect(onboardingState(facts)).toEqual({
      current_step: 'verify_email',
      completed_steps: [],
      missing: ['verify_email', 'select_plan'],
      onboarding_completed: false,
    });
    expect(onboardingState({ ...facts, emailVerified: true })).toMatchObject({ current_step: 'select_plan', missing: ['select_plan'] });
    expect(onboardingState({ ...facts, emailVerified: true, subscribed: true })).toMatchObject({ current_step: 'channel_setup', missing: [] });
    expect(onboardingState({ ...facts, emailVerified: true, subscribed: true, channelsReady: true })).toMatchObject({ current_step: 'finish' });
    expect(onboardingState({ emailVerified: true, subscribed: true, channelsReady: false, completed: true })).toEqual({
      current_step: null,
      completed_steps: ['verify_email', 'select_plan', 'finish'],
      missing: [],
      onboarding_completed: true,
    });
  });

  it('should name the required step missing before the one asked for, in order', () => {
    const none = onboardingState(facts);
    expect(missingBefore(none, 'verify_email')).toBeUndefined();
    expect(missingBefore(none, 'select_plan')).toBe('verify_email');
    expect(missingBefore(none, 'finish')).toBe('verify_email');
    const verified = onboardingState({ ...facts, emailVerified: true });
    expect(missingBefore(verified, 'select_plan')).toBeUndefined();
    expect(missingBefore(verified, 'channel_setup')).toBe('select_plan');
    // A subscription without verification (e.g. bought before confirming): verification still comes first.
    expect(missingBefore(onboardingState({ ...facts, subscribed: true }), 'finish')).toBe('verify_email');
  });
});
