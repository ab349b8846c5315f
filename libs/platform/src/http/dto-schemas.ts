import type { OpenAPIObject } from '@nestjs/swagger';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';

type Schemas = Record<string, object>;

type ObjectSchema = { properties?: Record<string, object>; required?: string[] };

// Nest's schema (from @ApiProperty: descriptions, nullable, required) with the validator's
// constraints laid over each property.
function merge(nest: ObjectSchema, derived: ObjectSchema): object {
  if (!nest.properties || Object.keys(nest.properties).length === 0) return derived;
  const properties = { ...nest.properties };
  for (const [name, rules] of Object.entries(derived.properties ?? {})) properties[name] = { ...properties[name], ...rules };
  return { ...nest, properties, required: nest.required ?? derived.required };
}

// Request DTOs' schemas from the class-validator rules the ValidationPipe enforces (types, formats
// such as uuid, lengths, ranges, enums), so a rule is declared once, on the DTO. Nest's explorer
// names a DTO's schema after its class and knows only what @ApiProperty says.
export function dtoSchemas(document: OpenAPIObject): void {
  const derived = validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' }) as Schemas;
  const components = (document.components ??= {});
  const schemas = (components.schemas ??= {}) as Schemas;
  for (const [name, schema] of Object.entries(derived)) schemas[name] = name in schemas ? merge(schemas[name] as ObjectSchema, schema as ObjectSchema) : schema;
}
