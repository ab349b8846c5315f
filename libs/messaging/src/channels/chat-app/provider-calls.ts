import type { Attachment } from '../../domain/media';

// The provider's chat-app body (§4.2). One call per attachment when sending several.
export interface ProviderBody {
  UOWCHAT: {
    random_string: number;
    receivers: { mobileNum: string }[];
    message: string;
    imageUrl: string;
    videoUrl: string;
    documentUrl: string;
  };
}

// Picks the nonce of calls 2..N: any integer the set does not hold yet, never 0.
export type NonceSource = () => number;

export function providerBody(receivers: string[], message: string, attachment?: Attachment, randomString = 0): ProviderBody {
  return {
    UOWCHAT: {
      random_string: randomString,
      receivers: receivers.map((mobileNum) => ({ mobileNum })),
      message,
      imageUrl: attachment?.kind === 'image' ? attachment.url : '',
      videoUrl: attachment?.kind === 'video' ? attachment.url : '',
      documentUrl: attachment?.kind === 'document' ? attachment.url : '',
    },
  };
}

// §4.1 multi-attachment rules: the first (or only) call carries the text or caption and nonce 0;
// caption-less calls 2..N carry a unique non-zero nonce so the provider does not drop them as duplicates.
export function planCalls(receivers: string[], message: string, attachments: Attachment[], nonce: NonceSource): ProviderBody[] {
  if (attachments.length === 0) return [providerBody(receivers, message)];
  const used = new Set<number>([0]);
  return attachments.map((attachment, index) => {
    if (index === 0) return providerBody(receivers, message, attachment, 0);
    let value = nonce();
    while (used.has(value)) value = nonce();
    used.add(value);
    return providerBody(receivers, '', attachment, value);
  });
}
