// A customer's public profile from the Graph API: GET {META_GRAPH_URL}/<page-scoped id>?fields=...
// with the page access token (as a bearer header, so it stays out of URLs, errors and logs).
export interface MetaProfile {
  firstName: string;
  lastName: string | null;
  profilePic: string | null;
  username: string | null;
}

// Messenger's User Profile API and Instagram's user profile fields differ.
const FIELDS = { messenger: 'first_name,last_name,profile_pic', instagram: 'name,username,profile_pic' } as const;

export class GraphProfileError extends Error {
  constructor(
    message: string,
    // A time-out, a network error or a 5xx: worth another try.
    readonly transient: boolean,
  ) {
    super(message);
  }
}

// PostgreSQL cannot store NUL: such characters are dropped rather than the profile refused.
const str = (v: unknown, max: number): string | null => {
  const text = typeof v === 'string' ? v.replaceAll('\u0000', '').trim() : '';
  return text === '' ? null : text.slice(0, max);
};

export class GraphProfileApi {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async lookup(kind: 'messenger' | 'instagram', userId: string, accessToken: string): Promise<MetaProfile | null> {
    const url = `${this.baseUrl.replace(/\/$/, '')}/${encodeURIComponent(userId)}?fields=${FIELDS[kind]}`;
    let res: Response;
    try {
      res = await fetch(url, { headers: { authorization: `Bearer ${accessToken}` }, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError') throw new GraphProfileError(`Graph API did not answer within ${this.timeoutMs} ms`, true);
      throw new GraphProfileError(`Graph API unreachable: ${e.cause?.code ?? e.message}`, true);
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    const error = body.error as { message?: unknown; code?: unknown } | undefined;
    if (!res.ok || error) {
      const reason = typeof error?.message === 'string' ? error.message.slice(0, 300) : `HTTP ${res.status}`;
      const code = error?.code !== undefined ? `, code ${String(error.code)}` : '';
      throw new GraphProfileError(`Graph API error (${res.status}${code}): ${reason}`, res.status >= 500);
    }
    const username = str(body.username, 100);
    // Instagram has one `name` (often empty): the handle stands in for it.
    const firstName = kind === 'messenger' ? str(body.first_name, 100) : (str(body.name, 100) ?? username);
    if (!firstName) return null;
    const pic = str(body.profile_pic, 2048);
    return {
      firstName,
      lastName: kind === 'messenger' ? str(body.last_name, 100) : null,
      profilePic: pic && /^https:\/\/\S+$/i.test(pic) ? pic : null,
      username,
    };
  }
}
