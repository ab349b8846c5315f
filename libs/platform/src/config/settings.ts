import { enumSetting, intSetting, listSetting, stringSetting, urlSetting } from './setting';

const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/;
const HOST_NAME = /^[A-Za-z0-9.-]+$/;
// What Fastify's trustProxy (proxy-addr) accepts by address: an IP, a CIDR range, or a named range.
const PROXY_ADDRESS = /^(loopback|linklocal|uniquelocal|\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(\/\d{1,3})?)$/;
const BASE64_32 = /^[A-Za-z0-9+/]{43}=$/;

// The platform's settings. Each context declares its own in its manifest (`settings`); the
// composition hands them to loadConfig and .env.example. OPERATIONS.md is the contract for every name.
export const SETTINGS = {
  NODE_ENV: enumSetting({
    group: 'service',
    default: 'development',
    values: ['development', 'production', 'test'],
    description: 'production refuses dev-only defaults (generated secrets, sandbox provider)',
  }),
  PORT: intSetting({ group: 'service', default: 3000, min: 0, max: 65535, description: 'HTTP port of the api (0 picks a free port)' }),
  HOST: stringSetting({
    group: 'service',
    default: '127.0.0.1',
    pattern: /^[A-Za-z0-9.:-]+$/,
    patternText: 'a host name or IP address',
    description: 'bind address of the api',
  }),
  DATA_DIR: stringSetting({ group: 'service', default: './.data', description: 'embedded database, local storage and generated dev secrets' }),
  LOG_LEVEL: enumSetting({
    group: 'service',
    default: 'info',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'pino log level',
  }),
  PUBLIC_URL: urlSetting({
    group: 'service',
    protocols: ['http:', 'https:'],
    description: 'address users and providers reach the service at: emailed links, SMS webhook addresses (signed by the provider); default http://HOST:PORT',
  }),
  TRUST_PROXY: listSetting({
    group: 'service',
    item: PROXY_ADDRESS,
    itemText: 'an IP address, a CIDR range, loopback, linklocal or uniquelocal',
    description: 'reverse proxies whose X-Forwarded-For is believed for the client address (login limits); unset: the socket address, headers ignored',
  }),
  BODY_LIMIT_BYTES: intSetting({
    group: 'service',
    default: 1048576,
    min: 1024,
    max: 104857600,
    description: 'largest JSON request body accepted (413 above it)',
  }),
  REQUEST_TIMEOUT_MS: intSetting({
    group: 'service',
    default: 600000,
    min: 1000,
    max: 86400000,
    description:
      'time a request (headers and body, an upload included) may take to arrive whole, however steadily it arrives; 408 and the connection closed after it',
  }),
  REQUEST_BODY_IDLE_MS: intSetting({
    group: 'service',
    default: 30000,
    min: 100,
    max: 3600000,
    description:
      'longest pause in a request body still arriving (no byte while the service waits for one); 408, the connection closed and the upload abandoned after it',
  }),
  BODY_MAX_DEPTH: intSetting({
    group: 'service',
    default: 32,
    min: 4,
    max: 256,
    description: 'deepest nesting of objects and arrays a JSON request body may have (400 beyond it)',
  }),

  WORKER_NICE: intSetting({
    group: 'service',
    default: 0,
    min: 0,
    max: 19,
    description: 'CPU niceness a worker process gives itself; on a host shared with the api, e.g. 10 keeps acknowledgements fast while the worker processes',
  }),

  DATABASE_URL: urlSetting({
    group: 'database',
    protocols: ['postgres:', 'postgresql:'],
    sensitive: true,
    requiredInProduction: true,
    description: 'PostgreSQL connection string; unset starts an embedded PostgreSQL in DATA_DIR/pg',
  }),
  DATABASE_POOL_SIZE: intSetting({
    group: 'database',
    default: 10,
    min: 2,
    max: 200,
    description: 'connections in the pool (at least 2: migrations hold one for their lock)',
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: intSetting({
    group: 'database',
    default: 8000,
    min: 100,
    max: 3600000,
    description: 'longest statement of a request (tenant transactions); beyond it PostgreSQL cancels it and the request answers 503',
  }),
  DATABASE_WORK_MEM_KB: intSetting({
    group: 'database',
    default: 4096,
    min: 64,
    max: 2097151,
    description: 'work_mem of tenant transactions: memory one sort or hash of a request may use before spilling to disk',
  }),

  ORG_MAX_CONCURRENT_REQUESTS: intSetting({
    group: 'database',
    default: 4,
    min: 1,
    max: 200,
    description: 'data API and function requests of one organization running at once (per api process); more wait in a short queue',
  }),
  ORG_MAX_CONCURRENT_SLOW_REQUESTS: intSetting({
    group: 'database',
    default: 2,
    min: 1,
    max: 200,
    description: 'requests running at once of an organization whose recent request transactions take ORG_SLOW_REQUEST_MS or more (per api process)',
  }),
  ORG_SLOW_REQUEST_MS: intSetting({
    group: 'database',
    default: 200,
    min: 1,
    max: 600000,
    description: "an organization's recent mean request-transaction time at or above which it is held to ORG_MAX_CONCURRENT_SLOW_REQUESTS",
  }),
  ORG_MAX_QUEUED_REQUESTS: intSetting({
    group: 'database',
    default: 8,
    min: 0,
    max: 1000,
    description: 'requests of one organization waiting for a slot; beyond it 429 too_many_concurrent_requests with Retry-After',
  }),
  ORG_QUEUE_WAIT_MS: intSetting({
    group: 'database',
    default: 2000,
    min: 10,
    max: 60000,
    description: 'longest wait of a queued request for a slot (then 429)',
  }),
  ORG_REFUSAL_DELAY_MS: intSetting({
    group: 'database',
    default: 1000,
    min: 0,
    max: 10000,
    description: 'how long the 429 of an organization with every slot and queue place taken is held before it is sent (0: at once)',
  }),
  ORG_MAX_CONCURRENT_UPLOADS: intSetting({
    group: 'database',
    default: 2,
    min: 1,
    max: 200,
    description:
      'uploads (multipart and CSV bodies read as they arrive) of one organization running at once (per api process); at most ORG_MAX_CONCURRENT_REQUESTS - 1, so its reads and sends keep a slot',
  }),
  MAX_CONCURRENT_UPLOADS: intSetting({
    group: 'database',
    default: 4,
    min: 1,
    max: 1000,
    description:
      "uploads of all organizations running at once (per api process); at most the gate's total - 1 (DATABASE_POOL_SIZE - 3), so the other organizations' reads and sends keep the rest",
  }),

  DATA_API_MAX_ROWS: intSetting({
    group: 'data-api',
    default: 1000,
    min: 1,
    max: 1000000,
    description: "most rows one data API read returns, top level and each embedded array (PostgREST's db-max-rows: a larger limit is cut)",
  }),
  DATA_API_MAX_RESPONSE_BYTES: intSetting({
    group: 'data-api',
    default: 67108864,
    min: 65536,
    max: 268435456,
    description: 'largest data API response body; a read that would exceed it stops and answers 400 data_api.response_too_large',
  }),

  KAFKA_BROKERS: listSetting({
    group: 'events',
    item: HOST_PORT,
    itemText: 'host:port',
    description: 'comma-separated Kafka brokers; unset uses the in-process event bus',
  }),
  OUTBOX_POLL_MS: intSetting({
    group: 'events',
    default: 250,
    min: 10,
    max: 60000,
    description: 'how often the outbox relay looks for events written by other processes',
  }),

  JOBS_CONCURRENCY: intSetting({ group: 'jobs', default: 4, min: 1, max: 1000, description: 'background jobs a worker process runs at once' }),
  JOBS_POLL_MS: intSetting({ group: 'jobs', default: 1000, min: 10, max: 60000, description: 'how often an idle worker looks for jobs and schedule ticks' }),
  JOBS_DEAD_RETENTION_DAYS: intSetting({ group: 'jobs', default: 30, min: 1, max: 3650, description: 'days dead-lettered jobs are kept to be replayed' }),

  JWT_SECRET: stringSetting({
    group: 'identity',
    sensitive: true,
    requiredInProduction: true,
    pattern: /^.{32,}$/,
    patternText: 'at least 32 characters',
    description: 'signs session JWTs and the anon key; dev: generated once into DATA_DIR',
  }),
  ENCRYPTION_KEY: stringSetting({
    group: 'identity',
    sensitive: true,
    requiredInProduction: true,
    pattern: BASE64_32,
    patternText: '32 bytes in base64 (44 characters)',
    description: 'key for secrets at rest (AES-256-GCM); dev: generated once into DATA_DIR',
  }),

  // Where the service keeps files (call recordings, re-hosted media): an S3-compatible bucket, or
  // a local directory standing in for it (docs/operations.md, Object storage).
  CDN_URL: urlSetting({
    group: 'storage',
    protocols: ['http:', 'https:'],
    description: 'S3-compatible endpoint with the bucket as its path (https://s3.eu-west-1.amazonaws.com/engage-cdn); unset keeps objects in CDN_DIR',
  }),
  CDN_ACCESS_KEY_ID: stringSetting({ group: 'storage', sensitive: true, description: 'access key of CDN_URL (required with it)' }),
  CDN_SECRET_ACCESS_KEY: stringSetting({ group: 'storage', sensitive: true, description: 'secret key of CDN_URL (required with it)' }),
  CDN_REGION: stringSetting({
    group: 'storage',
    default: 'us-east-1',
    pattern: /^[a-z0-9-]{1,40}$/,
    patternText: 'a region name like eu-west-1',
    description: 'signing region of CDN_URL',
  }),
  CDN_TIMEOUT_MS: intSetting({
    group: 'storage',
    default: 60000,
    min: 1000,
    max: 600000,
    description: 'longest one request to CDN_URL may take (a small put, one 5 MiB part of a multipart upload, a delete)',
  }),
  CDN_PUBLIC_URL: urlSetting({
    group: 'storage',
    protocols: ['http:', 'https:'],
    description: 'base address objects are served at, when not CDN_URL itself (a CDN in front of the bucket, or a server for CDN_DIR)',
  }),
  CDN_DIR: stringSetting({
    group: 'storage',
    description: 'directory of the local stand-in for the CDN (not a CDN), used when CDN_URL is unset; default DATA_DIR/cdn',
  }),

  OUTBOUND_ALLOW_HOSTS: listSetting({
    group: 'security',
    item: HOST_NAME,
    itemText: 'a host name or IP address',
    description: 'hosts exempt from the private-address block of outbound calls (tests: 127.0.0.1,localhost)',
  }),
  NODE_EXTRA_CA_CERTS: stringSetting({
    group: 'security',
    description: 'read by Node itself: extra CA certificates (lets tests use HTTPS receivers with their own certificate)',
  }),
};

export type SettingName = keyof typeof SETTINGS;
export type Config = { readonly [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> };
