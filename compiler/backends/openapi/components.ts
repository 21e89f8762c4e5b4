/**
 * The parts of the document many operations share, declared once under
 * `components` and referenced by `$ref` (bench/COMPILER.md: a table's share of the
 * document was 33 KB, mostly the same paging, grouping and condition text
 * repeated per resource). Sharing is by content: two resources whose
 * `per_page` says the same thing point at one `PerPage`; a resource with
 * other limits gets `PerPage2`, named in the order the tables come, so the
 * document stays deterministic (docs/decisions/1320-openapi-shared-components.md).
 */
import type { Header, JsonSchema, Parameter, ParameterRef } from "./types.js";

/** Collects shared parameters and schemas while the paths are built. */
export class SharedComponents {
  /** `components.parameters`, by name, in first-use order. */
  readonly parameters: Record<string, Parameter> = {};
  /** Shared schemas for `components.schemas`, by name, in first-use order. */
  readonly schemas: Record<string, JsonSchema> = {};
  /** Shared response headers for `components.headers`, by name. */
  readonly headers: Record<string, Header> = {};
  private readonly names = new Map<string, string>();
  private readonly memos = new Map<string, unknown>();
  private readonly taken = new Set<string>();

  /** A name for `value` under `base` in `kind`: the same content always gets the same name. */
  private nameFor(kind: string, base: string, value: unknown): { name: string; fresh: boolean } {
    const key = `${kind}\u0000${base}\u0000${JSON.stringify(value)}`;
    const known = this.names.get(key);
    if (known !== undefined) return { name: known, fresh: false };
    let name = base;
    for (let i = 2; this.taken.has(`${kind}/${name}`); i++) name = `${base}${i}`;
    this.taken.add(`${kind}/${name}`);
    this.names.set(key, name);
    return { name, fresh: true };
  }

  /**
   * What `make` returned the first time `key` was asked for. A caller that
   * knows everything its shared part depends on names it in `key`, so the
   * part is not rebuilt and re-serialised for each of a thousand tables
   * (bench/COMPILER.md); `make` usually ends in {@link schema} or {@link parameter}.
   */
  memo<T>(key: string, make: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = make();
    this.memos.set(key, value);
    return value;
  }

  /** A `$ref` to `parameter` under `components.parameters`, declaring it on first use. */
  parameter(base: string, parameter: Parameter): ParameterRef {
    const { name, fresh } = this.nameFor("parameters", base, parameter);
    if (fresh) this.parameters[name] = parameter;
    return { $ref: `#/components/parameters/${name}` };
  }

  /** A `$ref` to `header` under `components.headers`, declaring it on first use. */
  header(base: string, header: Header): { $ref: string } {
    const { name, fresh } = this.nameFor("headers", base, header);
    if (fresh) this.headers[name] = header;
    return { $ref: `#/components/headers/${name}` };
  }

  /** A `$ref` to `schema` under `components.schemas`, declaring it on first use. */
  schema(base: string, schema: JsonSchema): JsonSchema {
    const { name, fresh } = this.nameFor("schemas", base, schema);
    if (fresh) this.schemas[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  }
}
