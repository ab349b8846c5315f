import { type PlatformRuntime, settingsOf } from '@engage/platform';
import { BILLING_SETTINGS } from './billing.settings';

export const BILLING_CONFIG = Symbol('BILLING_CONFIG');

export interface BillingConfig {
  // The current secret first, then the previous one during a rotation; empty: not configured.
  secrets: readonly string[];
  // Lower-cased, as Node gives header names.
  signatureHeader: string;
}

export function billingConfig(runtime: PlatformRuntime): BillingConfig {
  const settings = settingsOf(runtime.config, BILLING_SETTINGS);
  const current = settings.BILLING_WEBHOOK_SECRET;
  const previous = settings.BILLING_WEBHOOK_SECRET_PREVIOUS;
  return { secrets: current ? [current, ...(previous ? [previous] : [])] : [], signatureHeader: settings.BILLING_SIGNATURE_HEADER.toLowerCase() };
}
