import { Module } from '@nestjs/common';
import { IdentityModule } from '@engage/identity';
import { RealtimeGateway } from './http/realtime-gateway';

// /realtime/v1/websocket (docs/realtime.md). The gateway finds the data API's registry and identity's
// Authenticator when the app starts; in the worker, which has no HTTP server, it does nothing.
@Module({
  imports: [IdentityModule],
  providers: [RealtimeGateway],
})
export class RealtimeModule {}
