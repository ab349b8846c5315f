import { intSetting } from '@engage/platform';

// What one process holds for realtime clients (docs/realtime.md, "Limits"): each bound is a setting.
export const REALTIME_SETTINGS = {
  REALTIME_MAX_SOCKETS_PER_ORGANIZATION: intSetting({
    group: 'realtime',
    default: 200,
    min: 1,
    max: 100000,
    description: 'websockets on /realtime/v1 one organization may hold on one api process; a join beyond it is refused with the reason',
  }),
  REALTIME_MAX_CHANNELS_PER_SOCKET: intSetting({
    group: 'realtime',
    default: 100,
    min: 1,
    max: 10000,
    description: 'channels one /realtime/v1 websocket may join at once; a join beyond it is refused with the reason',
  }),
  REALTIME_SEND_BUFFER_BYTES: intSetting({
    group: 'realtime',
    default: 1048576,
    min: 16384,
    max: 268435456,
    description: 'bytes waiting to be sent to one /realtime/v1 websocket (a slow reader); above it the socket is closed (1013) and the client reconnects',
  }),
};
