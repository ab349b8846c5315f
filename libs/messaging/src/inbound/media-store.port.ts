// Own storage for media received from providers (their URLs expire): the platform's object storage
// (infrastructure/object-media-store.ts).
export interface MediaStore {
  // Stores the bytes and returns the address they are served at.
  put(organizationId: string, bytes: Buffer, contentType: string): Promise<string>;
}

// Downloads a provider's media; throws with a clear message when it may not or cannot.
export type MediaFetcher = (url: string) => Promise<{ bytes: Buffer; contentType: string }>;
