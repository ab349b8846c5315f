import { stringSetting } from '@engage/platform';

const HEADER_NAME = /^[A-Za-z0-9-]{1,100}$/;
const SECRET = { pattern: /^.{16,}$/, patternText: 'at least 16 characters', maxLength: 1024 };

// The settings of the billing bridge (its manifest's `settings`).
export const BILLING_SETTINGS = {
  BILLING_WEBHOOK_SECRET: stringSetting({
    group: 'billing',
    sensitive: true,
    ...SECRET,
    description: 'shared HMAC secret of the billing bridge; unset makes the bridge answer 503',
  }),
  BILLING_WEBHOOK_SECRET_PREVIOUS: stringSetting({
    group: 'billing',
    sensitive: true,
    ...SECRET,
    description: 'the previous HMAC secret, also accepted while the integration moves to the new one (unset once it has)',
  }),
  BILLING_SIGNATURE_HEADER: stringSetting({
    group: 'billing',
    default: 'X-Billing-Signature',
    pattern: HEADER_NAME,
    patternText: 'an HTTP header name',
    description: 'header carrying hex (or sha256=-prefixed hex) HMAC-SHA256 of the raw body',
  }),
};
