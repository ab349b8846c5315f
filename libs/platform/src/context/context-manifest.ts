import type { DynamicModule, Type } from '@nestjs/common';
import type { EventContract, Permission } from '@engage/shared-kernel';
import type { SettingsGroup } from '../config/setting';
import type { MigrationClass } from '../database/data-source';
import type { JobDefinition, QueueDefinition, ScheduleDefinition } from '../jobs/job-definition';
import type { ExposedTable } from './exposed-table';

// What a context consumes: events of other contexts by declaration, and/or every event carrying a
// public contract (the webhook kinds of §6, the timeline projections).
export interface Consumption {
  readonly events?: readonly EventContract[];
  readonly contracts?: readonly ('webhook' | 'timeline')[];
}

// Durable jobs a context enqueues, the schedules the worker fires for it and its hot queues (docs/jobs.md).
export interface ContextJobs {
  readonly jobs?: readonly JobDefinition[];
  readonly schedules?: readonly ScheduleDefinition[];
  readonly queues?: readonly QueueDefinition[];
}

// One bounded context, self-described: what `libs/composition` needs to compose it into the api
// and the worker. Each context's index.ts exports one. A new kind of thing a context brings is one
// more field here and one more line in the composition that reads it (as `jobs` was).
export interface ContextManifest {
  readonly name: string;
  readonly module: Type | DynamicModule;
  readonly migrations: readonly MigrationClass[];
  // The data-API tables, each bound to its writer when it is writable.
  readonly tables: readonly ExposedTable[];
  readonly publishes: readonly EventContract[];
  readonly consumes: Consumption;
  // The settings it reads (names are a contract: OPERATIONS.md), read with settingsOf(config, group).
  readonly settings?: SettingsGroup;
  readonly jobs?: ContextJobs;
  // What its members may or may not do (definePermission), checked with identity's assertAllowed.
  readonly permissions?: readonly Permission[];
}

// Identity for the type checker: a manifest literal is checked field by field where it is written.
export const defineContext = <const M extends ContextManifest>(manifest: M): M => manifest;
