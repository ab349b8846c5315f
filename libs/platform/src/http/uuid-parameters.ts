// Ids in the paths of the functions and auth routes are UUIDs: the document says so (`format: uuid`)
// so generated clients and contract tests know it. The data API's own parameters come from its
// tables; `table`, `name` and `action` path parameters are words, not ids.
const ID_PARAMETER = /^(id|[a-z][A-Za-z]*Id)$/;

type Parameter = { in?: string; name?: string; schema?: Record<string, unknown> };
type Operation = { parameters?: Parameter[] };

export function uuidPathParameters(paths: Record<string, Record<string, unknown>>): void {
  for (const [path, item] of Object.entries(paths)) {
    if (!/^\/(functions|auth)\/v1\//.test(path)) continue;
    for (const operation of Object.values(item) as Operation[]) {
      for (const parameter of operation?.parameters ?? []) {
        if (parameter.in === 'path' && ID_PARAMETER.test(parameter.name ?? '')) parameter.schema = { ...parameter.schema, type: 'string', format: 'uuid' };
      }
    }
  }
}
