// What the service does around a tenant query, for the bare routes: verify the JWT, the
// per-request session check, then the work in a transaction with the tenant role and settings
// set locally (as Database.inTenant does).
export function bareTenant({ pool, key, sessionCheck, jwtVerify }) {
  return async function inTenant(request, reply, work) {
    const token = String(request.headers.authorization ?? '').slice(7);
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: 'engage' });
    const {
      rows: [check],
    } = await pool.query(sessionCheck, [payload.sub, payload.organization_id, payload.session_id]);
    if (!check || check.status !== 'active' || !check.alive) return reply.status(401).send({});
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        "SELECT set_config('role', 'app_tenant', true), set_config('app.org_id', $1, true), set_config('app.user_id', $2, true), set_config('app.role', $3, true), set_config('app.request_id', $4, true)",
        [payload.organization_id, payload.sub, check.role, request.id],
      );
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } finally {
      client.release();
    }
  };
}
