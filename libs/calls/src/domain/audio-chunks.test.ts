import { mp3FrameLength, splitRecording, splittableFormatOf, UnsplittableRecording } from './audio-chunks';
import { spokenText, wavSaying } from '../testing/loopback-providers';

// MPEG-1 Layer III, 128 kbps, 44.1 kHz: 417 bytes a frame (418 with padding).
function mp3Frame(fill: number, padding = false): Buffer {
  const frame = Buffer.alloc(padding ? 418 : 417, fill);
  frame.set([0xff, 0xfb, padding ? 0x92 : 0x90, 0x00]);
  return frame;
}

describe('splitting recordings for the transcription provider', () => {
  it('sends a recording within the limit whole, whatever its format', () => {
    const ogg = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(100)]);
    expect(splitRecording(ogg, 1000)).toEqual([ogg]);
  });

  it('cuts a WAV file on whole samples, each piece a WAV file of its own, the samples in order', () => {
    const text = Array.from({ length: 200 }, (_, i) => `word${String(i).padStart(3, '0')}`).join(' ');
    const wav = wavSaying(text);
    const pieces = splitRecording(wav, 301);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(301);
      expect(splittableFormatOf(piece)).toBe('wav');
      expect(piece.readUInt32LE(4)).toBe(piece.length - 8);
      expect(piece.readUInt32LE(40)).toBe(piece.length - 44);
      expect((piece.length - 44) % 2).toBe(0);
    }
    expect(Buffer.concat(pieces.map((p) => p.subarray(44))).equals(wav.subarray(44))).toBe(true);
    expect(pieces.map((p) => spokenText(p)).join('').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
  });

  it('cuts an MP3 file between frames, after an ID3 tag, and keeps every byte in order', () => {
    const id3 = Buffer.concat([Buffer.from('ID3'), Buffer.from([4, 0, 0, 0, 0, 0, 20]), Buffer.alloc(20)]);
    const frames = Array.from({ length: 30 }, (_, i) => mp3Frame(i + 1, i % 3 === 0));
    const mp3 = Buffer.concat([id3, ...frames]);
    expect(mp3FrameLength(mp3, id3.length)).toBe(418);
    const pieces = splitRecording(mp3, 2000);
    expect(pieces.length).toBeGreaterThan(5);
    expect(Buffer.concat(pieces).equals(mp3)).toBe(true);
    for (const [index, piece] of pieces.entries()) {
      expect(piece.length).toBeLessThanOrEqual(2000);
      if (index > 0) expect(mp3FrameLength(piece, 0)).not.toBeNull();
    }
  });

  it('refuses to cut what it cannot cut safely', () => {
    const aac = Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A '), Buffer.alloc(5000)]);
    expect(() => splitRecording(aac, 1000)).toThrow(UnsplittableRecording);
    expect(() => splitRecording(Buffer.concat([mp3Frame(1), mp3Frame(2)]), 300)).toThrow(/MP3 frame is larger/);
  });
});
