import { InvalidZoomEvent, parseRecordingCompleted } from './zoom-event';

describe("Zoom's recording.completed event", () => {
  const event = (object: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ event: 'recording.completed', payload: { object }, ...extra });

  it('takes the meeting, the download token and the files with an address and a type', () => {
    const parsed = parseRecordingCompleted(
      event(
        {
          uuid: 'u==',
          id: 123,
          topic: 'Review',
          host_id: 'h',
          host_email: 'h@example.com',
          start_time: '2026-11-24T10:00:00Z',
          duration: 30,
          share_url: 'https://z/s',
          recording_files: [
            { id: 'a', file_type: 'm4a', file_extension: 'M4A', recording_type: 'audio_only', file_size: 10, download_url: 'https://z/a' },
            { id: 'b', file_type: 'MP4' },
            'junk',
          ],
        },
        { download_token: 'tok' },
      ),
    );
    expect(parsed).toEqual({
      meeting: {
        meeting_id: '123',
        meeting_uuid: 'u==',
        topic: 'Review',
        host_id: 'h',
        host_email: 'h@example.com',
        start_time: '2026-11-24T10:00:00Z',
        duration_minutes: 30,
        share_url: 'https://z/s',
      },
      downloadToken: 'tok',
      files: [{ id: 'a', download_url: 'https://z/a', file_type: 'M4A', file_extension: 'm4a', recording_type: 'audio_only', file_size: 10 }],
    });
  });

  it('drops what PostgreSQL would refuse and refuses an event without its meeting', () => {
    const parsed = parseRecordingCompleted(event({ uuid: 'u', id: '9', start_time: 'yesterday', duration: -5 }));
    expect(parsed.meeting).toMatchObject({ start_time: null, duration_minutes: null, topic: null });
    expect(parsed).toMatchObject({ downloadToken: null, files: [] });
    expect(() => parseRecordingCompleted({ event: 'recording.completed' })).toThrow(InvalidZoomEvent);
    expect(() => parseRecordingCompleted(event({ id: 1 }))).toThrow('payload.object.id and uuid are required');
  });
});
