import { splitRecording, UnsplittableRecording } from '../domain/audio-chunks';
import { type LanguageHint, ProviderError, type Recording, type Transcriber, type Transcription } from '../application/providers';
import { providerRequest } from './provider-http';

// OpenAI's /audio/transcriptions accepts files up to 25 MB; a little under it leaves room for the form.
export const TRANSCRIBE_MAX_PIECE_BYTES = 24 * 1024 * 1024;

export interface OpenAiTranscriberOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  maxPieceBytes?: number;
  timeoutMs?: number;
}

// An OpenAI-compatible speech-to-text API: POST {base}/audio/transcriptions, multipart with `file`,
// `model`, `response_format=json` and `language` when a hint is given (auto: the model detects it).
// A long recording goes as pieces within the size limit, one after another, their texts joined in order.
export class OpenAiTranscriber implements Transcriber {
  constructor(private readonly options: OpenAiTranscriberOptions) {}

  async transcribe(recording: Recording, language: LanguageHint): Promise<Transcription> {
    let pieces: Buffer[];
    try {
      pieces = splitRecording(recording.bytes, this.options.maxPieceBytes ?? TRANSCRIBE_MAX_PIECE_BYTES);
    } catch (error) {
      if (error instanceof UnsplittableRecording) throw new ProviderError(error.message, false);
      throw error;
    }
    const texts: string[] = [];
    for (const [index, piece] of pieces.entries()) {
      texts.push(await this.piece(recording, piece, index, pieces.length, language));
    }
    return { text: texts.filter((text) => text !== '').join(' '), pieces: pieces.length, model: this.options.model };
  }

  private async piece(recording: Recording, bytes: Buffer, index: number, count: number, language: LanguageHint): Promise<string> {
    const form = new FormData();
    const filename = count === 1 ? recording.filename : recording.filename.replace(/(\.[A-Za-z0-9]+)?$/, (ext) => `-part${index + 1}${ext}`);
    // A view of the piece, not a copy (the Blob takes its own).
    const view = new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length);
    form.append('file', new Blob([view], { type: recording.contentType }), filename);
    form.append('model', this.options.model);
    form.append('response_format', 'json');
    if (language !== 'auto') form.append('language', language);
    const what = count === 1 ? 'transcription' : `transcription of piece ${index + 1} of ${count}`;
    const body = await providerRequest(`${this.options.baseUrl}/audio/transcriptions`, {
      apiKey: this.options.apiKey, body: form, timeoutMs: this.options.timeoutMs ?? 300_000, what,
    });
    const text = (body as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') throw new ProviderError(`${what} answered without a text`, true);
    return text.trim();
  }
}
