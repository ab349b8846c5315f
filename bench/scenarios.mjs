// What `npm run bench` measures. Each scenario names our route and the route of
// bench/bare-server.mjs that does the same SQL; `prepare` gets the demo credentials and a session.
export const scenarios = [
  { name: 'healthz', ours: { path: '/healthz' }, bare: { path: '/healthz' } },
  { name: 'readyz (database round trip)', ours: { path: '/readyz' }, bare: { path: '/readyz' } },
  {
    name: 'login (argon2id m=19456 t=2 p=1)',
    ours: { path: '/functions/v1/mobile-api/login', method: 'POST', body: (s) => s.credentials },
    bare: { path: '/login', method: 'POST', body: (s) => s.credentials },
  },
  {
    name: 'GET /auth/v1/user (JWT + session check)',
    ours: { path: '/auth/v1/user', headers: (s) => ({ authorization: `Bearer ${s.accessToken}` }) },
    bare: { path: '/user', headers: (s) => ({ authorization: `Bearer ${s.accessToken}` }) },
  },
  {
    name: 'GET mobile contacts, limit 50 of 10,000',
    ours: { path: '/functions/v1/mobile-api/contacts?limit=50', headers: (s) => ({ authorization: `Bearer ${s.accessToken}` }) },
    bare: { path: '/contacts?limit=50', headers: (s) => ({ authorization: `Bearer ${s.accessToken}` }) },
  },
  {
    name: 'GET mobile contacts, search by name',
    ours: { path: '/functions/v1/mobile-api/contacts?limit=50&search=Contact%20123', headers: (s) => ({ authorization: `Bearer ${s.accessToken}` }) },
    bare: { path: '/contacts?limit=50&search=Contact%20123', headers: (s) => ({ authorization: `Bearer ${s.accessToken}` }) },
  },
];
