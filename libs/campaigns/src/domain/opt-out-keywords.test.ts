import { DEFAULT_OPT_IN_KEYWORDS, DEFAULT_OPT_OUT_KEYWORDS, keywordListOf, matchKeyword } from './opt-out-keywords';

const defaults = { optOut: DEFAULT_OPT_OUT_KEYWORDS, optIn: DEFAULT_OPT_IN_KEYWORDS };

describe('opt-out keywords', () => {
  it.each([
    ['STOP', false, 'STOP'],
    ['stop', false, 'STOP'],
    ['  Stop \n', false, 'STOP'],
    ['stopall', false, 'STOPALL'],
    ['Unsubscribe', false, 'UNSUBSCRIBE'],
    ['cancel', false, 'CANCEL'],
    ['END', false, 'END'],
    ['quit', false, 'QUIT'],
    ['start', true, 'START'],
    [' UNSTOP', true, 'UNSTOP'],
  ])('should read %j as opt_in_status %s (%s)', (text, optInStatus, keyword) => {
    expect(matchKeyword(text, defaults)).toEqual({ optInStatus, keyword });
  });

  it.each([['STOP.'], ['please stop'], ['STOP STOP'], ['stopp'], [''], ['   '], ['S T O P'], [null], [42], ['STOP'.repeat(9)]])(
    'should not read %j as a keyword (whole message only)',
    (text) => {
      expect(matchKeyword(text, defaults)).toBeNull();
    },
  );

  it('should use the organization’s lists instead of the defaults, opt-out winning a word in both', () => {
    const lists = { optOut: ['ARRET', 'توقف', 'BOTH'], optIn: ['OUI', 'both'] };
    expect(matchKeyword('arret', lists)).toEqual({ optInStatus: false, keyword: 'ARRET' });
    expect(matchKeyword('توقف', lists)).toEqual({ optInStatus: false, keyword: 'توقف' });
    expect(matchKeyword('STOP', lists)).toBeNull();
    expect(matchKeyword('Oui', lists)).toEqual({ optInStatus: true, keyword: 'OUI' });
    expect(matchKeyword('Both', lists)).toEqual({ optInStatus: false, keyword: 'BOTH' });
  });

  it('should take a stored list, and the defaults when unset or unreadable', () => {
    expect(keywordListOf('["ARRET","FIN"]', DEFAULT_OPT_OUT_KEYWORDS)).toEqual(['ARRET', 'FIN']);
    expect(keywordListOf(null, DEFAULT_OPT_OUT_KEYWORDS)).toBe(DEFAULT_OPT_OUT_KEYWORDS);
    expect(keywordListOf('not json', DEFAULT_OPT_IN_KEYWORDS)).toBe(DEFAULT_OPT_IN_KEYWORDS);
    expect(keywordListOf('[]', DEFAULT_OPT_IN_KEYWORDS)).toBe(DEFAULT_OPT_IN_KEYWORDS);
    expect(keywordListOf('[1]', DEFAULT_OPT_IN_KEYWORDS)).toBe(DEFAULT_OPT_IN_KEYWORDS);
  });
});
