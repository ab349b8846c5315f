import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { ApiFamily } from './error-families';

type Schema = Record<string, unknown>;
const text = { type: 'string' };
const nullableText = { type: 'string', nullable: true };
const anything = { description: 'A sentence, facts (an object or array), or null' };

// Each family's error body (error-families.ts renders them), for the OpenAPI document.
export const ERROR_BODY: Record<ApiFamily, Schema> = {
  functions: { type: 'object', required: ['error', 'code'], properties: { error: text, code: text, hint: text } },
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
  403: 'The caller may not do this',
  404: 'Not found (or not visible to the caller)',
  405: 'Method not allowed',
  406: 'The answer cannot have the media type asked for',
  409: 'Conflicts with the current state',
  413: 'The body is too large',
  415: 'The body is not JSON',
  416: 'Range not satisfiable',
  422: 'The request is understood but refused',
  429: 'Too many requests; Retry-After says when to retry',
  502: 'An upstream service failed',
  503: 'Temporarily unavailable',
};

// The error statuses an operation answers, each with its family's body: @ApiErrors('functions', 400, 401, 404).
export function ApiErrors(family: ApiFamily, ...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(...statuses.map((status) => ApiResponse({ status, description: MEANING[status] ?? 'Error', schema: ERROR_BODY[family] })));
}
