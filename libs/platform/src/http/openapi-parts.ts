import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { familyErrorBodies } from './api-errors';
import { dtoSchemas } from './dto-schemas';
import { uuidPathParameters } from './uuid-parameters';

// Paths and components a context adds to the /docs document beyond what its controllers' decorators
// describe (the data API's tables, generated from its registry). Added while modules initialise;
// the document is built on its first request, after every part is in.
export interface OpenApiPart {
  paths: Record<string, object>;
  components?: { schemas?: Record<string, object>; parameters?: Record<string, object> };
}

@Injectable()
export class OpenApiParts {
  private readonly parts: (() => OpenApiPart)[] = [];

  add(part: () => OpenApiPart): void {
    this.parts.push(part);
  }

  // A part's operation replaces what the decorators said about the same method and path.
  mergeInto(document: OpenAPIObject): OpenAPIObject {
    for (const build of this.parts) {
      const part = build();
      for (const [path, item] of Object.entries(part.paths)) document.paths[path] = { ...document.paths[path], ...item };
      const components = (document.components ??= {});
      components.schemas = { ...components.schemas, ...part.components?.schemas } as typeof components.schemas;
      components.parameters = { ...components.parameters, ...part.components?.parameters } as typeof components.parameters;
    }
    dtoSchemas(document);
    familyErrorBodies(document.paths as Record<string, Record<string, unknown>>);
    uuidPathParameters(document.paths as Record<string, Record<string, unknown>>);
    return document;
  }
}
