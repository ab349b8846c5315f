// Peers and helpers other contexts' tests use (the Meta webhook sender, the Graph API on 127.0.0.1).
export * from './meta-peers';
// The chat-app provider on 127.0.0.1 and an api process around messaging (the worker-process tests).
export { RecordingProvider, type RecordedCall } from './recording-provider';
export { startChatLiteTestApp, type ChatLiteTestApp } from './chat-lite-test-app';
export { UNPACED_PACING } from './unpaced';
// The Twilio-style SMS provider on 127.0.0.1 and the provider's signed posts (campaigns' SMS tests).
export { SmsApiFake, postSigned } from './sms-peers';
