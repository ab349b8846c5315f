import { intSetting, listSetting, stringSetting, urlSetting } from '@engage/platform';

// The settings identity reads (its manifest's `settings`): sign-in limits, redirects, outgoing mail.
// JWT_SECRET and ENCRYPTION_KEY are the platform's (it generates them in development).
export const IDENTITY_SETTINGS = {
  LOGIN_LIMIT_PER_EMAIL: intSetting({
    group: 'identity',
    default: 10,
    min: 1,
    max: 1000000,
    description:
      'sign-in attempts per email address from one client address in 5 minutes (429 above); across addresses, attempts above it are slowed, ' + 'never refused',
  }),
  LOGIN_LIMIT_PER_IP: intSetting({
    group: 'identity',
    default: 50,
    min: 1,
    max: 1000000,
    description: 'sign-in attempts allowed per client address in 5 minutes (429 above)',
  }),
  AUTH_REDIRECT_URLS: listSetting({
    group: 'identity',
    item: /^https?:\/\/[^\s,]+$/,
    itemText: 'an http(s) URL prefix',
    description: 'where emailed sign-in links may redirect after verification (prefixes); PUBLIC_URL is always allowed',
  }),
  SMTP_URL: urlSetting({
    group: 'email',
    protocols: ['smtp:', 'smtps:'],
    sensitive: true,
    description: 'SMTP server for outgoing mail (verification, invitations); unset writes mail to DATA_DIR/mail (see npm run admin -- mailbox)',
  }),
  EMAIL_FROM: stringSetting({ group: 'email', default: 'Engage <no-reply@localhost>', description: 'From address of outgoing mail' }),
};
