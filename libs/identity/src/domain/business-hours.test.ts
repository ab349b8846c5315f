import { parseBusinessHours } from './business-hours';

const refused = (text: string) => {
  try {
    parseBusinessHours(text);
  } catch (error) {
    return { kind: (error as { kind: string }).kind, message: (error as Error).message };
  }
  throw new Error(`accepted ${text}`);
};

describe('parseBusinessHours', () => {
  it('should give seven days from Monday, intervals sorted, in minutes', () => {
    const week = parseBusinessHours('{"fri":[["13:00","24:00"],["08:30","12:00"]],"mon":[["09:00","17:00"]],"sun":[]}');
    expect(week).toEqual([
      [[540, 1020]],
      [],
      [],
      [],
      [
        [510, 720],
        [780, 1440],
      ],
      [],
      [],
    ]);
  });

  it('should accept intervals that touch', () => {
    expect(parseBusinessHours('{"sat":[["00:00","12:00"],["12:00","24:00"]]}')[5]).toEqual([
      [0, 720],
      [720, 1440],
    ]);
  });

  it.each([
    ['not JSON', '{mon: 9-17}', 'business_hours: must be JSON'],
    ['not an object', '[["09:00","17:00"]]', 'must be an object of weekdays'],
    ['a bad weekday', '{"monday":[["09:00","17:00"]]}', '"monday" is not a weekday (mon, tue, wed, thu, fri, sat, sun)'],
    ['a bad time', '{"mon":[["09:00","25:00"]]}', 'mon[0]: "25:00" is not a time "HH:MM"'],
    ['a time without leading zero', '{"mon":[["9:00","17:00"]]}', 'mon[0]: "9:00" is not a time'],
    ['a number for a time', '{"mon":[[900,1700]]}', 'mon[0]: 900 is not a time'],
    ['a start at 24:00', '{"mon":[["24:00","24:00"]]}', 'mon[0] ends (24:00) before or when it starts (24:00)'],
    ['an end before the start', '{"tue":[["17:00","09:00"]]}', 'tue[0] ends (09:00) before or when it starts (17:00)'],
    ['not a pair', '{"wed":[["09:00"]]}', 'wed[0] must be a pair'],
    ['a day that is not a list', '{"thu":"09:00-17:00"}', 'thu must be a list'],
    ['overlapping intervals', '{"fri":[["13:00","18:00"],["09:00","13:30"]]}', 'fri has overlapping intervals (09:00-13:30 and 13:00-18:00)'],
    ['too many intervals', `{"sat":${JSON.stringify(['01', '03', '05', '07', '09'].map((h) => [`${h}:00`, `${h}:30`]))}}`, 'sat has 5 intervals, at most 4'],
    ['no open interval', '{"mon":[],"sun":[]}', 'needs at least one open interval in the week'],
    ['nothing', '{}', 'needs at least one open interval in the week'],
  ])('should refuse %s with a validation error naming it', (_name, text, message) => {
    const error = refused(text);
    expect(error.kind).toBe('validation');
    expect(error.message).toContain(message);
  });
});
