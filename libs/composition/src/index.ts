import { analyticsManifest } from '@engage/analytics';
import { automationManifest } from '@engage/automation';
import { billingManifest } from '@engage/billing';
import { callsManifest } from '@engage/calls';
import { campaignsManifest } from '@engage/campaigns';
import { crmManifest } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest } from '@engage/identity';
import { messagingManifest } from '@engage/messaging';
import { onboardingManifest } from '@engage/onboarding';
import { realtimeManifest } from '@engage/realtime';
import { type ContextManifest, EventCatalogueModule, type JobRegistrations, type MigrationClass } from '@engage/platform';
import { reengagementManifest } from '@engage/reengagement';
import type { Permission } from '@engage/shared-kernel';
import { webhooksManifest } from '@engage/webhooks';

// The bounded contexts both apps compose, in migration order: adding a context is one line here
// (docs/architecture.md, "How to add a context"). The api serves their controllers and tables; the
// worker runs their event consumers and jobs.
export const CONTEXTS: readonly ContextManifest[] = [
  identityManifest,
  crmManifest,
  messagingManifest,
  billingManifest,
  onboardingManifest,
  reengagementManifest,
  callsManifest,
  webhooksManifest,
  analyticsManifest,
  realtimeManifest,
  automationManifest,
  campaignsManifest,
];

// What the apps import, built from a list of manifests (a test composes a throwaway context with it).
export function compose(contexts: readonly ContextManifest[]) {
  const events = contexts.flatMap((context) => context.publishes);
  const permissions = uniquePermissions(contexts);
  return {
    modules: [
      // Each context's `consumes` is checked against what the others publish, and at the worker's
      // start against the subscriptions its consumers make.
      EventCatalogueModule.forRoot(
        events,
        contexts.map((context) => ({ context: context.name, consumes: context.consumes })),
      ),
      ...contexts.map((context) => context.module),
      DataApiModule.forRoot(contexts.flatMap((context) => context.tables)),
    ],
    // Listed once so the api and the worker apply the same schema.
    migrations: contexts.flatMap((context): MigrationClass[] => [...context.migrations]),
    events,
    // Checked at start-up by loadConfig, and the source of .env.example.
    settings: contexts.flatMap((context) => (context.settings ? [context.settings] : [])),
    // Run by the job runner of worker processes.
    jobs: {
      jobs: contexts.flatMap((context) => context.jobs?.jobs ?? []),
      schedules: contexts.flatMap((context) => context.jobs?.schedules ?? []),
      queues: contexts.flatMap((context) => context.jobs?.queues ?? []),
    } satisfies JobRegistrations,
    permissions,
  };
}

// Every context's permissions, each name declared once across the composed contexts.
function uniquePermissions(contexts: readonly ContextManifest[]): readonly Permission[] {
  const owners = new Map<string, string>();
  for (const context of contexts) {
    for (const permission of context.permissions ?? []) {
      const owner = owners.get(permission.name);
      if (owner) throw new Error(`permission "${permission.name}" is declared by both ${owner} and ${context.name}`);
      owners.set(permission.name, context.name);
    }
  }
  return contexts.flatMap((context) => context.permissions ?? []);
}

const composed = compose(CONTEXTS);
export const CONTEXT_MODULES = composed.modules;
export const CONTEXT_MIGRATIONS: MigrationClass[] = composed.migrations;
export const CONTEXT_EVENTS = composed.events;
export const CONTEXT_JOBS = composed.jobs;
export const CONTEXT_SETTINGS = composed.settings;
export const CONTEXT_PERMISSIONS = composed.permissions;
