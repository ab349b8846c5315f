import { RequestMethod, applyDecorators } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ApiResponse } from '@nestjs/swagger';

import { type ApiFamily, familyOf } from './error-families';

// @nestjs/swagger's metadata key for @ApiResponse (not exported).
const API_RESPONSE = 'swagger/apiResponse';
type Schema = Record<string, unknown>;
const text = { type: 'string' };
const nullableText = { type: 'string', nullable: true };
const anything = { description: 'A sentence, facts (an object or array), or null' };

// Each family's error body (error-families.ts renders them), for the OpenAPI document.
export const ERROR_BODY: Record<ApiFamily, Schema> = {
  functions: { type: 'object', required: ['error', 'code'], properties: { error: text, code: text, hint: text, details: anything } },
  proxy: { type: 'object', required: ['error', 'hint', 'code', 'details'], properties: { error: text, hint: nullableText, code: text, details: anything } },
  rest: { type: 'object', required: ['code', 'message', 'details', 'hint'], properties: { code: text, message: text, details: anything, hint: nullableText } },
  // GoTrue's two formats: before and since X-Supabase-Api-Version 2024-01-01.
  auth: {
    oneOf: [
      { type: 'object', required: ['code', 'error_code', 'msg'], properties: { code: { type: 'integer' }, error_code: text, msg: text } },
      { type: 'object', required: ['code', 'message'], properties: { code: text, message: text } },
    ],
  },
};

const MEANING: Record<number, string> = {
  400: 'The request is malformed or a value is refused',
  401: 'No valid credentials',
  402: 'A plan limit is reached, or the subscription has ended (read-only)',
  403: 'The caller may not do this',
  404: 'Not found (or not visible to the caller)',
  405: 'Method not allowed',
  406: 'The answer cannot have the media type asked for',
  409: 'Conflicts with the current state',
  413: 'The body is too large',
  414: 'A path parameter is too long',
  415: 'The body is not JSON',
  416: 'Range not satisfiable',
  422: 'The request is understood but refused',
  429: 'Too many requests; Retry-After says when to retry',
  502: 'An upstream service failed',
  503: 'Temporarily unavailable',
};

// The error statuses an operation answers: @ApiErrors(404, 409). The body's shape follows from the
// URL's family, as at run time: familyErrorBodies fills it in when the document is built. On a
// route it must come first (above @Get/@Post and @HttpCode): any @ApiResponse drops Nest's default
// success entry, which it puts back from those.
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  const errors = statuses.map((status) => ApiResponse({ status, description: MEANING[status] ?? 'Error' }));
  return ((target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (!descriptor) return applyDecorators(...errors)(target as never);
    const handler = descriptor.value as object;
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
    if (method === undefined) throw new Error(`@ApiErrors on ${String(key)} must be written above its route decorator`);
    const declared = Reflect.getMetadata(API_RESPONSE, handler) as Record<string, unknown> | undefined;
    const success = (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (method === RequestMethod.POST ? 201 : 200);
    const extra = declared && Object.keys(declared).some((status) => Number(status) < 400) ? [] : [ApiResponse({ status: success, description: '' })];
    return applyDecorators(...extra, ...errors)(target, key as string | symbol, descriptor);
  }) as MethodDecorator & ClassDecorator;
}

type Operation = { requestBody?: unknown; security?: unknown[]; responses?: Record<string, { description?: string; content?: unknown }> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

// Every error response gets its family's body; and the answers the shared HTTP stack gives on any
// route are listed on every operation: 400 (a URL with %00, a malformed or too deep JSON body, a
// DTO's validation), for a body 413 and 415, for a path parameter 414 (longer than the router takes), and for a route that takes credentials (its `security`,
// from @Authenticated) 401, and 429 under /rest/v1 and /functions/v1. Listed here rather than with @ApiResponse, which would drop Nest's
// default success entry of every route it is put on.
export function familyErrorBodies(paths: Record<string, Record<string, unknown>>): void {
  for (const [path, item] of Object.entries(paths)) {
    const content = { 'application/json': { schema: ERROR_BODY[familyOf(path)] } };
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const responses = (operation.responses ??= {});
      const hasBody = operation.requestBody !== undefined || ['post', 'patch', 'put'].includes(method);
      const hasPathParameter = path.includes('{');
      const credentialed = Boolean(operation.security?.length);
      // A credentialed tenant-scoped route passes its organization's gate (gated-routes.ts).
      const gated = credentialed && /^\/(rest|functions)\/v1\//.test(path);
      const stack = [400, ...(hasBody ? [413, 415] : []), ...(hasPathParameter ? [414] : []), ...(credentialed ? [401] : []), ...(gated ? [429] : [])];
      for (const status of stack) responses[String(status)] ??= { description: MEANING[status] };
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400 && !response.content) response.content = content;
      }
    }
  }
}
