import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { json, OpenApiParts, viewSchema } from '@engage/platform';
import { DASHBOARD_WIDGETS } from '../infrastructure/exposed-tables';

const { object, arrayOf, nullable, number, extend, text } = json;
// `value` is null (and `error` says why) when the widget's value fails; `error` is null otherwise.
const WIDGET_ERROR = nullable(object({ code: text, message: text }));
export const WIDGET_LIST = object({ widgets: arrayOf(extend(viewSchema(DASHBOARD_WIDGETS), { value: nullable(number), error: WIDGET_ERROR })) });

// The list's operation in /docs replaces the data API's generic one for the same path; added at
// bootstrap, after the data API added its table's paths, so it comes last and wins.
@Injectable()
export class WidgetsOpenApi implements OnApplicationBootstrap {
  constructor(private readonly parts: OpenApiParts) {}

  onApplicationBootstrap(): void {
    const parameter = (name: string, description: string) => ({ name, in: 'query', required: false, schema: { type: 'string' }, description });
    this.parts.add(() => ({
      paths: {
        '/rest/v1/dashboard_widgets': {
          get: {
            tags: ['dashboard_widgets'],
            summary: "The signed-in member's widgets with their computed values (a new member starts from the default set)",
            parameters: [
              parameter('organization_id', "The caller's organization (bare or eq.<id>; another is a 403)"),
              parameter('is_visible', 'true or false (or eq.true, eq.false)'),
              parameter('select', 'Only * (whole widgets)'),
            ],
            responses: { 200: { description: 'Success', content: { 'application/json': { schema: WIDGET_LIST } } } },
          },
        },
      },
    }));
  }
}
