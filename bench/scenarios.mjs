// What `npm run bench` measures. Later issues add their routes here, each with the SQL-equivalent
// route of bench/bare-server.mjs as its baseline.
export const scenarios = [
  { name: 'healthz', path: '/healthz', baseline: '/healthz', database: false },
  { name: 'readyz (database round trip)', path: '/readyz', baseline: '/readyz', database: true },
];
