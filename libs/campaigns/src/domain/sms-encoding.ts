// How an SMS text travels (3GPP TS 23.038): in GSM-7 when every character is in the basic table or
// its extension (an extension character takes two septets, the escape and itself), else in UCS-2.
// One message holds 160 septets or 70 UCS-2 units; a longer text is split into parts of 153 or 67
// (the rest carries the concatenation header), and a character is never split across two parts
// (an extension pair, a surrogate pair).

const GSM_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';
const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSize {
  encoding: SmsEncoding;
  // Septets (GSM-7) or UTF-16 units (UCS-2) the text takes.
  units: number;
  segments: number;
}

const LIMITS: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

export function smsSize(text: string): SmsSize {
  const chars = [...text];
  const gsm = chars.every((c) => BASIC.has(c) || EXTENSION.has(c));
  const encoding: SmsEncoding = gsm ? 'GSM-7' : 'UCS-2';
  const widths = chars.map((c) => (gsm ? (EXTENSION.has(c) ? 2 : 1) : c.length));
  const units = widths.reduce((sum, w) => sum + w, 0);
  const { single, part } = LIMITS[encoding];
  if (units <= single) return { encoding, units, segments: units === 0 ? 0 : 1 };
  let segments = 1;
  let used = 0;
  for (const width of widths) {
    if (used + width > part) {
      segments += 1;
      used = 0;
    }
    used += width;
  }
  return { encoding, units, segments };
}
