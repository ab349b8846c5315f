export type RedirectAllowed = (url: string) => boolean;

export const REDIRECT_ALLOWED = Symbol('REDIRECT_ALLOWED');

// Only to our own address or a configured prefix: an open redirect would hand tokens to anyone.
export function redirectAllowList(publicUrl: string, prefixes: string[]): RedirectAllowed {
  const allowed = [publicUrl, ...prefixes].map((prefix) => (prefix.endsWith('/') ? prefix : `${prefix}/`));
  return (url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.username || parsed.password) return false;
    const normalized = parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`;
    return allowed.some((prefix) => normalized.startsWith(prefix));
  };
}
