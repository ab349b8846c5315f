import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MESSAGING_SETTINGS } from '@engage/messaging';
import { ConfigError, loadConfig, renderEnvExample, SETTINGS, settingsOf } from '@engage/platform';
import { CONTEXT_SETTINGS } from './index';

// The platform's settings and every context's, as the apps load them.

const errorOf = (env: Record<string, string>) => {
  try {
    loadConfig(env, CONTEXT_SETTINGS);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
};

describe('settings of the platform and the contexts', () => {
  it('should apply the documented defaults when nothing is set', () => {
    const config = loadConfig({}, CONTEXT_SETTINGS);
    expect(config.PORT).toBe(3000);
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.DATA_DIR).toBe('./.data');
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.KAFKA_BROKERS).toEqual([]);
    expect(settingsOf(config, MESSAGING_SETTINGS).PROVIDER_TIMEOUT_MS).toBe(15000);
    expect(config.LOG_LEVEL).toBe('info');
  });

  it('should parse lists and trim trailing slashes of URLs', () => {
    const env = { KAFKA_BROKERS: '127.0.0.1:9092, kafka-2:9093', NOTIFY_URL: 'http://127.0.0.1:4010/', OUTBOUND_ALLOW_HOSTS: '127.0.0.1,localhost' };
    const config = loadConfig(env, CONTEXT_SETTINGS);
    expect(config.KAFKA_BROKERS).toEqual(['127.0.0.1:9092', 'kafka-2:9093']);
    expect(settingsOf(config, MESSAGING_SETTINGS).NOTIFY_URL).toBe('http://127.0.0.1:4010');
    expect(config.OUTBOUND_ALLOW_HOSTS).toEqual(['127.0.0.1', 'localhost']);
    const proxies = loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback, 2001:db8::/32,192.0.2.7' }).TRUST_PROXY;
    expect(proxies).toEqual(['10.0.0.0/8', 'loopback', '2001:db8::/32', '192.0.2.7']);
    expect(loadConfig({}).TRUST_PROXY).toEqual([]);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT', 'whole number'],
    [{ PORT: '70000' }, 'PORT', 'between 0 and 65535'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', 'one of'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', 'postgres'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL', 'absolute URL'],
    [{ KAFKA_BROKERS: 'localhost' }, 'KAFKA_BROKERS', 'host:port'],
    [{ ENCRYPTION_KEY: 'short' }, 'ENCRYPTION_KEY', '32 bytes'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET', 'at least 32'],
    [{ ALLOW_ANON_SEND: 'maybe' }, 'ALLOW_ANON_SEND', 'true or false'],
    [{ DATABASE_POOL_SIZE: '1' }, 'DATABASE_POOL_SIZE', 'between 2'],
    [{ TRUST_PROXY: 'proxy.example.com' }, 'TRUST_PROXY', 'CIDR range'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY', 'CIDR range'],
  ])('should name the setting when %j is bad', (env, setting, words) => {
    const error = errorOf(env);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.setting).toBe(setting);
    expect(error.message).toContain(words);
  });

  it('should require secrets, a database and the provider in production', () => {
    expect(errorOf({ NODE_ENV: 'production' }).setting).toBe('DATABASE_URL');
    const database = { NODE_ENV: 'production', DATABASE_URL: 'postgres://u@h/db' };
    expect(errorOf(database).setting).toBe('JWT_SECRET');
    const secrets = { ...database, JWT_SECRET: 'x'.repeat(40), ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
    // A context's setting (messaging's provider) is checked when the apps load the config.
    expect(errorOf(secrets).setting).toBe('NOTIFY_URL');
    expect(loadConfig({ ...secrets, NOTIFY_URL: 'https://provider.example' }, CONTEXT_SETTINGS).NODE_ENV).toBe('production');
  });

  it('should describe every setting, and flag the secrets as sensitive', () => {
    const all = Object.assign({}, SETTINGS, ...CONTEXT_SETTINGS) as Record<string, { description: string; sensitive: boolean }>;
    for (const setting of Object.values(all)) expect(setting.description.length).toBeGreaterThan(10);
    for (const name of ['DATABASE_URL', 'JWT_SECRET', 'ENCRYPTION_KEY', 'SMTP_URL', 'CDN_SECRET_ACCESS_KEY', 'CDN_ACCESS_KEY_ID']) {
      expect({ name, sensitive: all[name].sensitive }).toEqual({ name, sensitive: true });
    }
  });

  it('should match the checked-in .env.example (run npm run env:example after changing settings)', () => {
    const checkedIn = readFileSync(join(__dirname, '..', '..', '..', '.env.example'), 'utf8');
    expect(checkedIn).toEqual(renderEnvExample(CONTEXT_SETTINGS));
  });
});
