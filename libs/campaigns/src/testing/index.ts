// The campaigns context in a test process with its peers (the worker-process tests use it).
export { type CampaignsApp, startCampaignsApp, waitFor } from './campaigns-test-app';
