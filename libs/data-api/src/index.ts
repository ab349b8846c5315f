export { defineRegistry, findTable, type ColumnType, type ForeignKey, type Registry, type TableDefinition, type ValueNormalizer } from './registry';
export { pgrstError } from './errors';
export type { Condition, Filter, Logic, Operator, OrderTerm, ReadPlan, ReadRequest, SelectItem, ColumnItem, Embed, EmbedItem } from './parse/plan';
export { parseReadRequest } from './parse/request.parser';
export { buildReadSql, type Statement } from './sql/read.sql';
export { contentRange, executeRead, type ReadResponse } from './read';
export { DataApiModule } from './data-api.module';
export { DATA_API_REGISTRY } from './http/rest.controller';
export { executeWrite, type WriteRequest } from './write';
// For contexts that run the filter grammar over their own allow-listed sources (analytics widgets):
// the columns a caller's role reads, the tables' value normalisers, and PostgreSQL errors as the data API answers them.
export { whereSql } from './sql/filter.sql';
export { Params } from './sql/params';
export { registryFor } from './registry';
export { normalizePlan } from './normalize';
export { asPostgrestError } from './sqlstate';
