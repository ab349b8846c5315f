// What a message's media are (§4.2: image, video, document), whatever the channel.
export type MediaKind = 'image' | 'video' | 'document';

export interface Attachment {
  url: string;
  kind: MediaKind;
}

const VIDEO = /\.(mp4|mov|webm|3gp|mkv)(\?|#|$)/i;
const DOCUMENT = /\.(pdf|docx?|xlsx?|pptx?|txt|csv|zip)(\?|#|$)/i;

// The single-message function sends images (§4.2); other kinds are recognised by extension for
// the campaign scheduler that shares this adapter.
export const attachmentOf = (url: string, imagesOnly = true): Attachment => ({
  url,
  kind: imagesOnly ? 'image' : VIDEO.test(url) ? 'video' : DOCUMENT.test(url) ? 'document' : 'image',
});
