import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AudioFormat, SNIFF_BYTES, sniffAudioFormat } from '../domain/audio-format';
import { type LanguageHint, ProviderError, type Recording, type Transcriber, type Transcription } from '../application/providers';
import { providerUpload } from './provider-http';
import { splitRecordingFile, UnsplittableRecording } from './recording-splitter';

// OpenAI's /audio/transcriptions accepts files up to 25 MB; a little under it leaves room for the form.
export const TRANSCRIBE_MAX_PIECE_BYTES = 24 * 1024 * 1024;

export interface OpenAiTranscriberOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  maxPieceBytes?: number;
  timeoutMs?: number;
  // Where the pieces of a long recording are cut to (a temporary folder in it, removed when done).
  workDir?: string;
}

// An OpenAI-compatible speech-to-text API: POST {base}/audio/transcriptions, multipart with `file`,
// `model`, `response_format=json` and `language` when a hint is given (auto: the model detects it).
// A long recording goes as pieces within the size limit, one after another, their texts joined in order.
// Files are streamed from disk into the request, never read whole into memory.
export class OpenAiTranscriber implements Transcriber {
  constructor(private readonly options: OpenAiTranscriberOptions) {}

  async transcribe(recording: Recording, language: LanguageHint): Promise<Transcription> {
    const maxBytes = this.options.maxPieceBytes ?? TRANSCRIBE_MAX_PIECE_BYTES;
    if (recording.bytes <= maxBytes) {
      const text = await this.piece(recording, 'transcription', language);
      return { text, pieces: 1, model: this.options.model };
    }
    const format = await formatOf(recording.path);
    if (!format) {
      throw new ProviderError(
        `a recording of ${recording.bytes} bytes exceeds the transcription limit of ${maxBytes} bytes and its format is not known`,
        false,
      );
    }
    const dir = await mkdtemp(join(this.options.workDir ?? tmpdir(), 'engage-pieces-'));
    try {
      const pieces = await splitRecordingFile({ path: recording.path, bytes: recording.bytes, format }, dir, maxBytes).catch((error: unknown) => {
        if (error instanceof UnsplittableRecording) throw new ProviderError(`the recording cannot be split: ${error.message}`, false);
        throw error;
      });
      const base = recording.filename.replace(/\.[A-Za-z0-9]+$/, '');
      const texts: string[] = [];
      for (const [index, piece] of pieces.entries()) {
        const what = `transcription of piece ${index + 1} of ${pieces.length}`;
        const file = { path: piece, bytes: (await stat(piece)).size, filename: `${base}-part${index + 1}.${format.ext}`, contentType: format.contentType };
        texts.push(await this.piece(file, what, language));
      }
      return { text: texts.filter((text) => text !== '').join(' '), pieces: pieces.length, model: this.options.model };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async piece(file: Recording, what: string, language: LanguageHint): Promise<string> {
    const fields: Record<string, string> = { model: this.options.model, response_format: 'json' };
    if (language !== 'auto') fields.language = language;
    const body = await providerUpload(`${this.options.baseUrl}/audio/transcriptions`, {
      apiKey: this.options.apiKey,
      fields,
      file,
      timeoutMs: this.options.timeoutMs ?? 300_000,
      what,
    });
    const text = (body as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') throw new ProviderError(`${what} answered without a text`, true);
    return text.trim();
  }
}

async function formatOf(path: string): Promise<AudioFormat | undefined> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await file.read(head, 0, SNIFF_BYTES, 0);
    return sniffAudioFormat(head.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}
