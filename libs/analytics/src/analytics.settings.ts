import { intSetting } from '@engage/platform';

// The settings analytics reads (its manifest's `settings`).
export const ANALYTICS_SETTINGS = {
  ANALYTICS_WIDGET_CACHE_SECONDS: intSetting({
    group: 'analytics',
    default: 15,
    min: 0,
    max: 3600,
    description: "how long a dashboard widget's value, once computed for an organization, is served again to its members (0: computed on every read)",
  }),
};
