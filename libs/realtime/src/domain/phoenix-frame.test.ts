import { decodeFrame, encodeFrame, MalformedFrame, reply } from './phoenix-frame';

describe('phoenix frames', () => {
  it('should decode and encode 2.0.0 arrays as realtime-js sends them', () => {
    const message = decodeFrame('2.0.0', JSON.stringify(['1', '2', 'realtime:room', 'phx_join', { config: {} }]));
    expect(message).toEqual({ joinRef: '1', ref: '2', topic: 'realtime:room', event: 'phx_join', payload: { config: {} } });
    expect(encodeFrame('2.0.0', reply(message, 'ok', { postgres_changes: [] }))).toBe(
      JSON.stringify(['1', '2', 'realtime:room', 'phx_reply', { status: 'ok', response: { postgres_changes: [] } }]),
    );
  });

  it('should decode and encode 1.0.0 objects, numeric refs as strings', () => {
    const message = decodeFrame('1.0.0', JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 5 }));
    expect(message).toEqual({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '5', joinRef: null });
    expect(JSON.parse(encodeFrame('1.0.0', reply(message, 'ok')))).toEqual({
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: '5',
      join_ref: null,
    });
  });

  it.each([
    ['not JSON', '2.0.0', '{'],
    ['an object under 2.0.0', '2.0.0', '{"topic":"a","event":"b","payload":{}}'],
    ['an array under 1.0.0', '1.0.0', '[null,null,"a","b",{}]'],
    ['a short array', '2.0.0', '[null,null,"a","b"]'],
    ['a payload that is not an object', '2.0.0', '[null,null,"a","b",[]]'],
    ['an empty topic', '2.0.0', '[null,null,"","b",{}]'],
    ['an object as ref', '2.0.0', '[null,{},"a","b",{}]'],
    ['a ref too long', '2.0.0', `[null,"${'1'.repeat(65)}","a","b",{}]`],
  ] as const)('should refuse %s', (_name, vsn, text) => {
    expect(() => decodeFrame(vsn, text)).toThrow(MalformedFrame);
  });
});
