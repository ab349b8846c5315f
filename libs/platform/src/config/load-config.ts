import { ConfigError, type ConfigOf, InvalidValue, type SettingsGroup } from './setting';
import { cdnTargetOf } from '../storage/cdn-target';
import { type Config, SETTINGS } from './settings';

// The environment a config was read from, kept (not enumerable) so a context reads its own
// settings from it with settingsOf.
const ENVIRONMENT = Symbol('environment');

function parseSettings<S extends SettingsGroup>(settings: S, env: NodeJS.ProcessEnv): ConfigOf<S> {
  const production = env.NODE_ENV?.trim() === 'production';
  const values: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(settings)) {
    try {
      values[name] = setting.parse(env[name]);
    } catch (error) {
      if (error instanceof InvalidValue) throw new ConfigError(name, error.message);
      throw error;
    }
    if (production && setting.requiredInProduction && values[name] === undefined) throw new ConfigError(name, 'is required when NODE_ENV=production');
  }
  return values as ConfigOf<S>;
}

// Reads the platform's settings and checks the contexts' (`groups`, from their manifests) from the
// environment; the first bad value throws a ConfigError naming it, so a bad setting fails the start.
export function loadConfig(env: NodeJS.ProcessEnv = process.env, groups: readonly SettingsGroup[] = []): Config {
  const config = parseSettings(SETTINGS, env) as Config;
  // Settings that are checked together: the CDN's address and credentials.
  cdnTargetOf(config);
  const seen = new Set(Object.keys(SETTINGS));
  for (const group of groups) {
    for (const name of Object.keys(group)) {
      if (seen.has(name)) throw new ConfigError(name, 'is declared twice');
      seen.add(name);
    }
    parseSettings(group, env);
  }
  Object.defineProperty(config, ENVIRONMENT, { value: { ...env }, enumerable: false });
  return config;
}

// A context's settings, typed by its group, from the environment `config` was loaded from.
export function settingsOf<S extends SettingsGroup>(config: Config, group: S): ConfigOf<S> {
  return parseSettings(group, (config as unknown as Record<symbol, NodeJS.ProcessEnv | undefined>)[ENVIRONMENT] ?? {});
}

// Used by entry points: one clear line on stderr and exit code 1 for a bad setting.
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env, groups: readonly SettingsGroup[] = []): Config {
  try {
    return loadConfig(env, groups);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`invalid setting ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

// Where emailed links point: PUBLIC_URL, or this process's own address.
export function publicUrl(config: Config): string {
  return config.PUBLIC_URL ?? `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${config.PORT}`;
}
