import { Controller, Post } from '@nestjs/common';
import { column, declareTable, field } from '@engage/shared-kernel';
import { ApiErrors } from './api-errors';
import { ApiAnswer, nullable, object, oneOfValues, text, viewSchema } from './response-schemas';

const THINGS = declareTable({
  name: 'things',
  columns: {
    id: column('uuid'),
    name: field('text', (value) => String(value)),
    note: column('text', { nullable: true }),
    amount: column('numeric', { select: 'amount::float8 AS amount' }),
    secret: column('bytea', { api: 'hidden' }),
    data: column('jsonb', { nullable: true }),
    at: column('timestamptz'),
  },
});

describe('response schemas', () => {
  it('should derive a view from the column declarations: served columns, all present, nullable as declared', () => {
    expect(viewSchema(THINGS)).toEqual({
      type: 'object',
      required: ['id', 'name', 'note', 'amount', 'data', 'at'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        name: { type: 'string' },
        note: { type: 'string', nullable: true },
        amount: { type: 'number' },
        data: {},
        at: { type: 'string', format: 'date-time' },
      },
    });
    expect(viewSchema(THINGS, ['id'])).toEqual({ type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } });
    expect(() => viewSchema(THINGS, ['secret'])).toThrow('things: secret is not a served column');
    expect(() => viewSchema(THINGS, ['nope'])).toThrow('things: nope is not a served column');
  });

  it('should list null in a nullable enum and leave optional properties out of required', () => {
    expect(nullable(oneOfValues(['a', 'b']))).toEqual({ type: 'string', enum: ['a', 'b', null], nullable: true });
    expect(oneOfValues([true])).toEqual({ type: 'boolean', enum: [true] });
    expect(object({ a: text, b: text }, ['b'])).toEqual({ type: 'object', required: ['a'], properties: { a: text, b: text } });
    expect(object({ b: text }, ['b'])).toEqual({ type: 'object', properties: { b: text } });
  });

  it('should declare the success answer so @ApiErrors adds no bodiless default entry', () => {
    @Controller('functions/v1/things')
    class Things {
      @ApiErrors(404)
      @ApiAnswer(200, object({ id: text }))
      @Post(':id/do')
      act() {}
    }
    const responses = Reflect.getMetadata('swagger/apiResponse', Things.prototype.act) as Record<string, { content?: object }>;
    expect(Object.keys(responses).sort()).toEqual(['200', '404']);
    expect(responses['200'].content).toEqual({ 'application/json': { schema: object({ id: text }) } });
  });
});
