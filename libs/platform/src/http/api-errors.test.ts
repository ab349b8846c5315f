import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiErrors, ERROR_BODY, familyErrorBodies } from './api-errors';

const responsesOf = (handler: object) => Reflect.getMetadata('swagger/apiResponse', handler) as Record<string, { description: string }>;

describe('ApiErrors', () => {
  it('should declare the statuses and keep the success entry Nest would have given the route', () => {
    @Controller('functions/v1/things')
    class Things {
      @ApiErrors(404)
      @Get(':id')
      read() {}

      @ApiErrors(404, 409)
      @Post(':id/move')
      @HttpCode(200)
      move() {}

      @ApiErrors(422)
      @Post()
      create() {}
    }
    expect(Object.keys(responsesOf(Things.prototype.read)).sort()).toEqual(['200', '404']);
    expect(Object.keys(responsesOf(Things.prototype.move)).sort()).toEqual(['200', '404', '409']);
    expect(Object.keys(responsesOf(Things.prototype.create)).sort()).toEqual(['201', '422']);
  });

  it('should refuse, when the class loads, to sit below the route decorator it reads', () => {
    expect(() => {
      class Wrong {
        @Get()
        @ApiErrors(404)
        read() {}
      }
      return Wrong;
    }).toThrow('@ApiErrors on read must be written above its route decorator');
  });
});

describe('familyErrorBodies', () => {
  it("should give each error response its family's body and list the stack's own statuses", () => {
    const paths: Record<string, Record<string, unknown>> = {
      '/functions/v1/things/{id}': { get: { responses: { '200': { description: '' }, '404': { description: 'Not found' } }, security: [{ bearer: [] }] } },
      '/auth/v1/token': { post: { responses: { '200': { description: '' } } } },
      '/rest/v1/profiles': { patch: { responses: { '204': { description: '' } }, requestBody: {} } },
    };
    familyErrorBodies(paths);
    const thing = (paths['/functions/v1/things/{id}'].get as { responses: Record<string, { content?: unknown }> }).responses;
    expect(Object.keys(thing).sort()).toEqual(['200', '400', '401', '404', '414', '429']);
    expect(thing['404'].content).toEqual({ 'application/json': { schema: ERROR_BODY.functions } });
    expect(thing['200'].content).toBeUndefined();
    const token = (paths['/auth/v1/token'].post as { responses: Record<string, { content?: unknown }> }).responses;
    expect(Object.keys(token).sort()).toEqual(['200', '400', '413', '415']);
    expect(token['400'].content).toEqual({ 'application/json': { schema: ERROR_BODY.auth } });
    const profile = (paths['/rest/v1/profiles'].patch as { responses: Record<string, { content?: unknown }> }).responses;
    expect(profile['415'].content).toEqual({ 'application/json': { schema: ERROR_BODY.rest } });
  });
});
