// The recording formats of spec §8, recognised from a file's first bytes (its name and declared
// type are the client's word, the bytes are not): MP3, M4A, WAV, OGG, WebM, AAC, 3GP, AMR.

export interface AudioFormat {
  readonly name: 'mp3' | 'm4a' | 'wav' | 'ogg' | 'webm' | 'aac' | '3gp' | 'amr';
  // The file extension of the stored object and the content type it is stored with.
  readonly ext: string;
  readonly contentType: string;
}

const FORMATS = {
  mp3: { name: 'mp3', ext: 'mp3', contentType: 'audio/mpeg' },
  m4a: { name: 'm4a', ext: 'm4a', contentType: 'audio/mp4' },
  wav: { name: 'wav', ext: 'wav', contentType: 'audio/wav' },
  ogg: { name: 'ogg', ext: 'ogg', contentType: 'audio/ogg' },
  webm: { name: 'webm', ext: 'webm', contentType: 'audio/webm' },
  aac: { name: 'aac', ext: 'aac', contentType: 'audio/aac' },
  '3gp': { name: '3gp', ext: '3gp', contentType: 'audio/3gpp' },
  amr: { name: 'amr', ext: 'amr', contentType: 'audio/amr' },
} as const satisfies Record<AudioFormat['name'], AudioFormat>;

// How many leading bytes sniffing looks at (a WebM header names its DocType within them).
export const SNIFF_BYTES = 64;

// ISO base media (MP4 family) major brands that carry audio as M4A; 3GPP's start with 3gp / 3g2.
const M4A_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'mp41', 'mp42', 'isom', 'iso2', 'iso4', 'iso5', 'iso6', 'dash', 'f4a ']);

const ascii = (head: Uint8Array, from: number, to: number): string => String.fromCharCode(...head.subarray(from, to));

// The format of a file starting with `head`, or undefined when it is none of the accepted ones.
export function sniffAudioFormat(head: Uint8Array): AudioFormat | undefined {
  if (head.length < 4) return undefined;
  if (ascii(head, 0, 3) === 'ID3') return FORMATS.mp3;
  if (ascii(head, 0, 4) === 'OggS') return FORMATS.ogg;
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WAVE') return FORMATS.wav;
  if (ascii(head, 0, 6) === '#!AMR\n' || ascii(head, 0, 9) === '#!AMR-WB\n') return FORMATS.amr;
  if (ascii(head, 0, 4) === 'ADIF') return FORMATS.aac;
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) {
    // EBML: WebM names itself in the header's DocType (Matroska says "matroska").
    return ascii(head, 4, Math.min(head.length, SNIFF_BYTES)).includes('webm') ? FORMATS.webm : undefined;
  }
  if (ascii(head, 4, 8) === 'ftyp') {
    const brand = ascii(head, 8, 12);
    if (brand.startsWith('3gp') || brand.startsWith('3g2')) return FORMATS['3gp'];
    return M4A_BRANDS.has(brand) ? FORMATS.m4a : undefined;
  }
  // MPEG audio frame sync (11 bits). Layer bits 00 with 12 sync bits: an AAC ADTS frame; layer III: MP3.
  if (head[0] === 0xff && (head[1] & 0xe0) === 0xe0) {
    if ((head[1] & 0xf6) === 0xf0) return FORMATS.aac;
    if ((head[1] & 0x06) === 0x02 && (head[1] & 0x18) !== 0x08) return FORMATS.mp3;
  }
  return undefined;
}
