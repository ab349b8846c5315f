// Splits a recording into pieces a speech-to-text provider accepts (OpenAI's limit is 25 MB a
// request) without decoding it: only where the format allows a cut that leaves each piece a valid
// file of its own. WAV (PCM) is cut on sample frames, each piece given its own header; MP3 is cut
// between MPEG audio frames. Other formats are sent whole, and one over the limit cannot be split.

export type SplittableFormat = 'wav' | 'mp3';

export class UnsplittableRecording extends Error {}

export function splittableFormatOf(bytes: Buffer): SplittableFormat | null {
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (bytes.length >= 3 && bytes.toString('latin1', 0, 3) === 'ID3') return 'mp3';
  if (mp3FrameLength(bytes, 0) !== null) return 'mp3';
  return null;
}

// The pieces, in order, each at most maxBytes long (a single one when the whole fits).
export function splitRecording(bytes: Buffer, maxBytes: number): Buffer[] {
  if (bytes.length <= maxBytes) return [bytes];
  const format = splittableFormatOf(bytes);
  if (format === 'wav') return splitWav(bytes, maxBytes);
  if (format === 'mp3') return splitMp3(bytes, maxBytes);
  throw new UnsplittableRecording(
    `a recording of ${bytes.length} bytes exceeds the transcription limit of ${maxBytes} bytes and only WAV and MP3 can be split`,
  );
}

interface RiffChunk {
  id: string;
  start: number;
  size: number;
}

function riffChunks(bytes: Buffer): RiffChunk[] {
  const chunks: RiffChunk[] = [];
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = bytes.toString('latin1', at, at + 4);
    const size = Math.min(bytes.readUInt32LE(at + 4), bytes.length - at - 8);
    chunks.push({ id, start: at + 8, size });
    at += 8 + size + (size % 2);
  }
  return chunks;
}

function splitWav(bytes: Buffer, maxBytes: number): Buffer[] {
  const chunks = riffChunks(bytes);
  const fmt = chunks.find((c) => c.id === 'fmt ');
  const data = chunks.find((c) => c.id === 'data');
  if (!fmt || !data || fmt.size < 16) throw new UnsplittableRecording('a WAV file without a readable fmt and data chunk cannot be split');
  const fmtBody = bytes.subarray(fmt.start, fmt.start + fmt.size);
  const blockAlign = Math.max(1, fmtBody.readUInt16LE(12));
  const headerBytes = 12 + 8 + fmtBody.length + 8;
  const perPiece = Math.floor((maxBytes - headerBytes) / blockAlign) * blockAlign;
  if (perPiece <= 0) throw new UnsplittableRecording(`a transcription limit of ${maxBytes} bytes leaves no room for WAV samples`);
  const pieces: Buffer[] = [];
  for (let at = data.start; at < data.start + data.size; at += perPiece) {
    const samples = bytes.subarray(at, Math.min(at + perPiece, data.start + data.size));
    pieces.push(wavFile(fmtBody, samples));
  }
  return pieces;
}

function wavFile(fmtBody: Buffer, samples: Buffer): Buffer {
  const header = Buffer.alloc(12 + 8 + fmtBody.length + 8);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(header.length - 8 + samples.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(fmtBody.length, 16);
  fmtBody.copy(header, 20);
  header.write('data', 20 + fmtBody.length, 'latin1');
  header.writeUInt32LE(samples.length, 24 + fmtBody.length);
  return Buffer.concat([header, samples]);
}

// kbps by [MPEG-1 ? 0 : 1][layer I, II, III][bitrate index].
const BITRATES = [
  [
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  ],
  [
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
];
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

// The length of the MPEG audio frame whose header starts at `at`, or null when none does.
export function mp3FrameLength(bytes: Buffer, at: number): number | null {
  if (at + 4 > bytes.length || bytes[at] !== 0xff || (bytes[at + 1] & 0xe0) !== 0xe0) return null;
  const version = (bytes[at + 1] >> 3) & 3;
  const layerBits = (bytes[at + 1] >> 1) & 3;
  const bitrateIndex = bytes[at + 2] >> 4;
  const rateIndex = (bytes[at + 2] >> 2) & 3;
  if (version === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const layer = 4 - layerBits; // 1, 2 or 3
  const bitrate = BITRATES[version === 3 ? 0 : 1][layer - 1][bitrateIndex] * 1000;
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  const padding = (bytes[at + 2] >> 1) & 1;
  if (layer === 1) return (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  const factor = layer === 3 && version !== 3 ? 72 : 144;
  return Math.floor((factor * bitrate) / sampleRate) + padding;
}

function id3Length(bytes: Buffer): number {
  if (bytes.length < 10 || bytes.toString('latin1', 0, 3) !== 'ID3') return 0;
  const size = ((bytes[6] & 0x7f) << 21) | ((bytes[7] & 0x7f) << 14) | ((bytes[8] & 0x7f) << 7) | (bytes[9] & 0x7f);
  return 10 + size + ((bytes[5] & 0x10) !== 0 ? 10 : 0);
}

// Frame boundaries, in order: a frame is believed when the next one follows it (or the file ends).
function mp3Boundaries(bytes: Buffer): number[] {
  const boundaries: number[] = [];
  let at = id3Length(bytes);
  while (at < bytes.length) {
    const length = mp3FrameLength(bytes, at);
    const next = length === null ? null : at + length;
    if (next !== null && (next >= bytes.length || mp3FrameLength(bytes, next) !== null || bytes.length - next < 4)) {
      boundaries.push(at);
      at = next;
    } else {
      at += 1; // not a frame here (a tag, junk): the bytes stay with the piece before
    }
  }
  return boundaries;
}

function splitMp3(bytes: Buffer, maxBytes: number): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  let lastCut = 0;
  for (const boundary of [...mp3Boundaries(bytes).filter((b) => b > 0), bytes.length]) {
    if (boundary - start > maxBytes) {
      if (lastCut <= start) throw new UnsplittableRecording(`an MP3 frame is larger than the transcription limit of ${maxBytes} bytes`);
      pieces.push(bytes.subarray(start, lastCut));
      start = lastCut;
      if (boundary - start > maxBytes) throw new UnsplittableRecording(`an MP3 frame is larger than the transcription limit of ${maxBytes} bytes`);
    }
    lastCut = boundary;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}
