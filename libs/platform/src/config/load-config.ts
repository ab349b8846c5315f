import { ConfigError, InvalidValue } from './setting';
import { type Config, SETTINGS, type SettingName } from './settings';

// Reads every setting from the environment; the first bad value throws a ConfigError naming it.
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS)) {
    try {
      config[name] = setting.parse(env[name]);
    } catch (error) {
      if (error instanceof InvalidValue) throw new ConfigError(name, error.message);
      throw error;
    }
  }
  const result = config as Config;
  if (result.NODE_ENV === 'production') {
    for (const required of ['JWT_SECRET', 'ENCRYPTION_KEY', 'DATABASE_URL', 'NOTIFY_URL'] as SettingName[]) {
      if (result[required] === undefined) throw new ConfigError(required, 'is required when NODE_ENV=production');
    }
  }
  return result;
}

// Used by entry points: one clear line on stderr and exit code 1 for a bad setting.
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
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
