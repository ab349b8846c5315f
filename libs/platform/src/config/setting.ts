// A setting read from the environment: described, flagged when sensitive, parsed at boot.
export interface Setting<T> {
  group: string;
  description: string;
  sensitive: boolean;
  // The default as written in .env.example; undefined means "unset".
  example: string | undefined;
  // With NODE_ENV=production, unset is an error.
  requiredInProduction?: boolean;
  parse(raw: string | undefined): T;
}

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    readonly reason: string,
  ) {
    super(`${setting}: ${reason}`);
    this.name = 'ConfigError';
  }
}

// Thrown by parsers; the loader adds the setting's name.
export class InvalidValue extends Error {}

interface Base {
  group: string;
  description: string;
  sensitive?: boolean;
  requiredInProduction?: boolean;
}

const blank = (raw: string | undefined) => raw === undefined || raw.trim() === '';

export function intSetting(opts: Base & { default: number; min: number; max: number }): Setting<number> {
  return {
    group: opts.group,
    description: opts.description,
    sensitive: opts.sensitive ?? false,
    example: String(opts.default),
    parse(raw) {
      if (blank(raw)) return opts.default;
      const text = raw!.trim();
      if (!/^\d+$/.test(text)) throw new InvalidValue(`must be a whole number, got "${text}"`);
      const value = Number(text);
      if (value < opts.min || value > opts.max) throw new InvalidValue(`must be between ${opts.min} and ${opts.max}, got ${value}`);
      return value;
    },
  };
}

type StringOptions = Base & { default?: string; pattern?: RegExp; patternText?: string; maxLength?: number };

export function stringSetting(opts: StringOptions & { default: string }): Setting<string>;
export function stringSetting(opts: StringOptions): Setting<string | undefined>;
export function stringSetting(opts: StringOptions): Setting<string | undefined> {
  return {
    group: opts.group,
    description: opts.description,
    sensitive: opts.sensitive ?? false,
    example: opts.default,
    requiredInProduction: opts.requiredInProduction,
    parse(raw) {
      if (blank(raw)) return opts.default;
      const text = raw!.trim();
      if (opts.maxLength !== undefined && text.length > opts.maxLength) throw new InvalidValue(`must be at most ${opts.maxLength} characters`);
      if (opts.pattern && !opts.pattern.test(text)) throw new InvalidValue(`must be ${opts.patternText ?? `like ${opts.pattern}`}`);
      return text;
    },
  };
}

export function enumSetting<const V extends string>(opts: Base & { default: V; values: readonly V[] }): Setting<V> {
  return {
    group: opts.group,
    description: opts.description,
    sensitive: false,
    example: opts.default,
    parse(raw) {
      if (blank(raw)) return opts.default;
      const text = raw!.trim();
      if (!(opts.values as readonly string[]).includes(text)) throw new InvalidValue(`must be one of ${opts.values.join(', ')}, got "${text}"`);
      return text as V;
    },
  };
}

export function booleanSetting(opts: Base & { default: boolean }): Setting<boolean> {
  return {
    group: opts.group,
    description: opts.description,
    sensitive: false,
    example: String(opts.default),
    parse(raw) {
      if (blank(raw)) return opts.default;
      const text = raw!.trim().toLowerCase();
      if (['true', '1', 'yes'].includes(text)) return true;
      if (['false', '0', 'no'].includes(text)) return false;
      throw new InvalidValue(`must be true or false, got "${raw!.trim()}"`);
    },
  };
}

export function urlSetting(opts: Base & { protocols: string[]; default?: string }): Setting<string | undefined> {
  return {
    group: opts.group,
    description: opts.description,
    sensitive: opts.sensitive ?? false,
    example: opts.default,
    requiredInProduction: opts.requiredInProduction,
    parse(raw) {
      if (blank(raw)) return opts.default;
      const text = raw!.trim();
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        throw new InvalidValue('must be an absolute URL');
      }
      if (!opts.protocols.includes(url.protocol)) throw new InvalidValue(`must use ${opts.protocols.join(' or ')}`);
      return text.replace(/\/+$/, '');
    },
  };
}

export function listSetting(opts: Base & { item: RegExp; itemText: string }): Setting<string[]> {
  return {
    group: opts.group,
    description: opts.description,
    sensitive: false,
    example: undefined,
    parse(raw) {
      if (blank(raw)) return [];
      const items = raw!
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
      const bad = items.find((item) => !opts.item.test(item));
      if (bad !== undefined) throw new InvalidValue(`each item must be ${opts.itemText}, got "${bad}"`);
      return items;
    },
  };
}

// A context's settings (its manifest's `settings`), read with settingsOf(config, group).
export type SettingsGroup = Readonly<Record<string, Setting<unknown>>>;
export type ConfigOf<S extends SettingsGroup> = { readonly [K in keyof S]: ReturnType<S[K]['parse']> };
