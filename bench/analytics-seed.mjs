// Seeds the analytics bench in SQL: per organization 100,000 contacts, 100,000 conversations with
// 10 messages each (1,000,000: customer and agent in turn, minutes apart), spread over the last 90
// days, and 20,000 deals on a pipeline with open, won and lost stages. Ids are derived from the
// organization and a counter, so the statements need no round trip per row.
export const CONVERSATIONS = 100_000;
export const MESSAGES_PER_CONVERSATION = 10;
export const DEALS = 20_000;

const id = (kind) => `md5($1::text || '${kind}' || n)::uuid`;

export async function seedOrganization(client, organizationId, assigneeId) {
  await client.query(
    `INSERT INTO channel_accounts (id, organization_id, kind, name) VALUES (md5($1::text || 'channel')::uuid, $1::uuid, 'chat_app', 'Bench')`,
    [organizationId],
  );
  await client.query(
    `INSERT INTO contacts (id, organization_id, first_name, created_at)
     SELECT ${id('contact')}, $1::uuid, 'Contact ' || n, now() - make_interval(days => n % 90 + 1, mins => n % 1440) FROM generate_series(1, $2) n`,
    [organizationId, CONVERSATIONS],
  );
  // 70 % resolved, a fifth of the rest unassigned.
  await client.query(
    `INSERT INTO conversations (id, organization_id, contact_id, channel_account_id, status, assignee_id, created_at, last_message_at)
     SELECT ${id('conversation')}, $1::uuid, ${id('contact')}, md5($1::text || 'channel')::uuid, CASE WHEN n % 10 < 7 THEN 'RESOLVED' ELSE 'OPEN' END,
            CASE WHEN n % 5 = 0 THEN NULL ELSE $3::uuid END, now() - make_interval(days => n % 90 + 1, mins => n % 1440), now() - make_interval(days => n % 90)
     FROM generate_series(1, $2) n`,
    [organizationId, CONVERSATIONS, assigneeId],
  );
  await client.query(`UPDATE conversations SET resolved_at = created_at + interval '3 hours' WHERE organization_id = $1::uuid AND status = 'RESOLVED'`, [
    organizationId,
  ]);
  // Row triggers off for the bulk insert (the seed's rows are consistent by construction); the first
  // replies the triggers would keep are then set in one statement, as the migration's backfill does.
  await client.query(`SET session_replication_role = replica`);
  await client.query(
    `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, created_at, origin)
     SELECT $1::uuid, ${id('conversation')}, ${id('contact')}, md5($1::text || 'channel')::uuid,
            CASE WHEN k % 2 = 0 THEN 'INBOUND' ELSE 'OUTBOUND' END, CASE WHEN k % 2 = 0 THEN 'DELIVERED' ELSE 'SENT' END, 'bench message',
            now() - make_interval(days => n % 90 + 1, mins => n % 1440) + make_interval(mins => k * ((n * 7 + k * 13) % 90 + 1)),
            CASE WHEN k % 2 = 0 THEN 'customer' ELSE 'agent' END
     FROM generate_series(1, $2) n, generate_series(0, $3 - 1) k`,
    [organizationId, CONVERSATIONS, MESSAGES_PER_CONVERSATION],
  );
  await client.query(`SET session_replication_role = DEFAULT`);
  await client.query(
    `UPDATE messages SET first_reply_at = message_next_reply(organization_id, conversation_id, created_at)
     WHERE organization_id = $1::uuid AND direction = 'INBOUND'`,
    [organizationId],
  );
  const pipeline = `md5($1::text || 'pipeline')::uuid`;
  await client.query(`INSERT INTO pipelines (id, organization_id, name) VALUES (${pipeline}, $1::uuid, 'Bench')`, [organizationId]);
  await client.query(
    `INSERT INTO pipeline_stages (id, organization_id, pipeline_id, key, name, position, outcome)
     SELECT md5($1::text || 'stage' || key)::uuid, $1::uuid, ${pipeline}, key, name, position, outcome
     FROM (VALUES ('LEAD', 'Lead', 0, 'open'), ('PROPOSAL', 'Proposal', 1, 'open'), ('WON', 'Won', 2, 'won'), ('LOST', 'Lost', 3, 'lost'))
       s(key, name, position, outcome)`,
    [organizationId],
  );
  await client.query(
    `WITH d AS (SELECT n, (ARRAY['LEAD', 'PROPOSAL', 'WON', 'LOST'])[n % 4 + 1] AS stage FROM generate_series(1, $2) n)
     INSERT INTO deals (id, organization_id, title, pipeline_id, stage_id, stage, value, created_at)
     SELECT ${id('deal')}, $1::uuid, 'Deal ' || n, ${pipeline}, md5($1::text || 'stage' || stage)::uuid, stage, (n % 997) * 10,
            now() - make_interval(days => n % 180)
     FROM d`,
    [organizationId, DEALS],
  );
  await client.query(
    `INSERT INTO deal_stage_history (organization_id, deal_id, from_stage, to_stage, changed_at)
     SELECT organization_id, id, 'LEAD', stage, created_at + interval '5 days' FROM deals WHERE organization_id = $1::uuid AND stage IN ('WON', 'LOST')`,
    [organizationId],
  );
}
