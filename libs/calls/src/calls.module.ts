import { Module } from '@nestjs/common';

// Filled by the calls issue: call records, recordings, transcription and analysis.
@Module({})
export class CallsModule {}
