import { sniffAudioFormat } from './audio-format';
import { recordingKey } from './recording-key';

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniffAudioFormat', () => {
  it.each([
    ['ID3-tagged MP3', bytes('ID3\x03\x00'), 'mp3'],
    ['MPEG-1 layer III frame', bytes([0xff, 0xfb, 0x90, 0x64]), 'mp3'],
    ['MPEG-2 layer III frame', bytes([0xff, 0xf3, 0x48, 0xc4]), 'mp3'],
    ['AAC ADTS (MPEG-4)', bytes([0xff, 0xf1, 0x50, 0x80]), 'aac'],
    ['AAC ADTS (MPEG-2)', bytes([0xff, 0xf9, 0x50, 0x80]), 'aac'],
    ['AAC ADIF', bytes('ADIF\x00'), 'aac'],
    ['M4A', bytes([0, 0, 0, 0x20], 'ftypM4A \x00\x00\x00\x00'), 'm4a'],
    ['MP4 audio (isom)', bytes([0, 0, 0, 0x20], 'ftypisom\x00\x00\x02\x00'), 'm4a'],
    ['3GP', bytes([0, 0, 0, 0x18], 'ftyp3gp5'), '3gp'],
    ['3G2', bytes([0, 0, 0, 0x18], 'ftyp3g2a'), '3gp'],
    ['WAV', bytes('RIFF\x00\x00\x00\x00WAVE'), 'wav'],
    ['OGG', bytes('OggS\x00\x02'), 'ogg'],
    ['WebM', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84], 'webm'), 'webm'],
    ['AMR', bytes('#!AMR\n'), 'amr'],
    ['AMR-WB', bytes('#!AMR-WB\n'), 'amr'],
  ])('recognises %s', (_name, head, format) => {
    expect(sniffAudioFormat(head)?.name).toBe(format);
  });

  it.each([
    ['text', bytes('hello, this is not audio')],
    ['too few bytes', bytes('ID')],
    ['RIFF that is not WAVE (AVI)', bytes('RIFF\x00\x00\x00\x00AVI ')],
    ['Matroska', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88], 'matroska')],
    ['an MP4 video brand', bytes([0, 0, 0, 0x18], 'ftypavc1')],
    ['MPEG layer with the reserved version', bytes([0xff, 0xeb, 0x90, 0x64])],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0])],
    ['PNG', bytes([0x89], 'PNG\r\n\x1a\n')],
    ['PDF', bytes('%PDF-1.7')],
  ])('refuses %s', (_name, head) => {
    expect(sniffAudioFormat(head)).toBeUndefined();
  });
});

describe('recordingKey', () => {
  it('places a recording under <suite_id>/<yyyy>/<mm>/<id>.<ext> of the upload month (UTC)', () => {
    expect(recordingKey('suite-42', new Date('2026-01-31T23:30:00-02:00'), 'b9f0a7e6-1111-4222-8333-944455556666', 'm4a')).toBe(
      'suite-42/2026/02/b9f0a7e6-1111-4222-8333-944455556666.m4a',
    );
  });

  it.each(['', '../etc', 'a/b', '.hidden', 'x'.repeat(65), 'suite id'])('refuses the suite id %p (400)', (suite) => {
    expect(() => recordingKey(suite, new Date(), 'id', 'mp3')).toThrow(expect.objectContaining({ kind: 'validation', code: 'call.invalid_suite_id' }));
  });
});
