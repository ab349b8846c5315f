// The parts of Zoom's recording.completed event the import uses (Zoom's "Cloud recording" webhook
// reference): the meeting under payload.object, its recording_files, and the event's download_token,
// sent as a bearer token when fetching each file's download_url.

export interface ZoomRecordingFile {
  id: string;
  download_url: string;
  file_type: string;
  file_extension: string;
  recording_type: string | null;
  file_size: number | null;
}

export interface ZoomMeeting {
  meeting_id: string;
  meeting_uuid: string;
  topic: string | null;
  host_id: string | null;
  host_email: string | null;
  start_time: string | null;
  duration_minutes: number | null;
  share_url: string | null;
}

export interface ZoomRecordingCompleted {
  meeting: ZoomMeeting;
  downloadToken: string | null;
  files: ZoomRecordingFile[];
}

// An ISO 8601 time PostgreSQL will take, else null (the record then uses the time it arrived).
const isoTime = (v: unknown): string | null =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)) ? v : null;

export class InvalidZoomEvent extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max: number): string | null => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : typeof v === 'number' ? String(v) : null);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : null);

// Audio Zoom records (audio_only is M4A); the video files are left on Zoom.
export const AUDIO_FILE_TYPES = new Set(['M4A', 'MP3', 'WAV']);

export function parseRecordingCompleted(body: Obj): ZoomRecordingCompleted {
  const object = isObj(body.payload) ? body.payload.object : undefined;
  if (!isObj(object)) throw new InvalidZoomEvent('payload.object is missing');
  const meetingId = text(object.id, 64);
  const uuid = text(object.uuid, 128);
  if (!meetingId || !uuid) throw new InvalidZoomEvent('payload.object.id and uuid are required');
  const rawFiles = Array.isArray(object.recording_files) ? object.recording_files.slice(0, 50) : [];
  const files: ZoomRecordingFile[] = rawFiles.filter(isObj).flatMap((file) => {
    const url = text(file.download_url, 2048);
    const type = text(file.file_type, 20)?.toUpperCase();
    if (!url || !type) return [];
    return [
      {
        id: text(file.id, 128) ?? '',
        download_url: url,
        file_type: type,
        file_extension: (text(file.file_extension, 10) ?? type).toLowerCase(),
        recording_type: text(file.recording_type, 64),
        file_size: count(file.file_size),
      },
    ];
  });
  return {
    meeting: {
      meeting_id: meetingId,
      meeting_uuid: uuid,
      topic: text(object.topic, 300),
      host_id: text(object.host_id, 128),
      host_email: text(object.host_email, 320),
      start_time: isoTime(object.start_time),
      duration_minutes: count(object.duration),
      share_url: text(object.share_url, 2048),
    },
    downloadToken: text(body.download_token, 4096),
    files,
  };
}
