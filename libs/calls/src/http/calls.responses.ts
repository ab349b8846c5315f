import { json } from '@engage/platform';

const { uuid, text, boolean, arrayOf, object, oneOfValues } = json;

// §4.4's answer to a registered call, exactly.
export const CALL_REGISTERED = object({
  success: oneOfValues([true]),
  call_record_id: uuid,
  status: oneOfValues(['received']),
  contact_matched: boolean,
  recording_stored: boolean,
});

// Whether the organization's Zoom secret token is set (never the token) and the address to give Zoom.
export const ZOOM_SETTINGS = object({ secret_token_set: boolean, webhook_path: text });

// Zoom's URL check is answered with the token and its HMAC; a meeting's recordings with the call records
// made (none when already recorded); any other event is acknowledged and ignored.
export const ZOOM_WEBHOOK_ANSWER = {
  oneOf: [
    object({ plainToken: text, encryptedToken: text }),
    object({ received: oneOfValues([true]), call_record_ids: arrayOf(uuid) }),
    object({ received: oneOfValues([true]), ignored: oneOfValues([true]) }),
  ],
};
