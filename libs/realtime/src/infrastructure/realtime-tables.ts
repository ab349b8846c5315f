// The data-API tables whose changes /realtime/v1 publishes: each has the triggers of a realtime
// migration (0001 for these two), an `id` and an `organization_id`, and is served by the data API.
export const REALTIME_TABLES: readonly string[] = ['messages', 'conversations'];
