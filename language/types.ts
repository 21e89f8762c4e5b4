/**
 * The one table of PostgreSQL built-in types the language knows by name:
 * every spelling (catalog and SQL-standard aliases included, so a schema
 * copied from `pg_dump` output resolves), the canonical name each becomes,
 * and how each travels at run time (its {@link ValueKind}).
 *
 * The parser canonicalizes spellings with it (`int` → `integer`,
 * `timestamp with time zone` → `timestamptz`) and the validator, the
 * backends and `resc pull` look types up in it, so they agree on every type
 * by construction. Types outside it are passed through to the DDL unchanged
 * and travel as kind `other` (docs/decisions/0201-unknown-types.md); a
 * name one edit from a known one is a probable typo ({@link probableTypeTypo}).
 */
import type { ValueKind } from "../runtime/descriptor.js";
import { closest } from "./suggest.js";

/**
 * A built-in type. `family` groups types a foreign key may join across
 * (PostgreSQL compares them with one btree operator family); `cast` is the
 * name used to cast bind parameters, modifiers dropped because the
 * unmodified type is unbounded (`character` becomes `bpchar`, since a bare
 * `character` means `character(1)`).
 */
export interface BuiltinType {
  /** The spelling written in DDL and shown in messages. */
  name: string;
  kind: ValueKind;
  family: string;
  cast: string;
  /** Whether modifiers are meaningful in DDL for this type (`numeric(5,2)`); casts never carry them. */
  takesModifiers: boolean;
  /** `serial` types: the database supplies a value. */
  serial: boolean;
}

function t(
  name: string,
  kind: ValueKind,
  family: string,
  extra: Partial<Pick<BuiltinType, "cast" | "takesModifiers" | "serial">> = {},
): BuiltinType {
  return {
    name,
    kind,
    family,
    cast: extra.cast ?? name,
    takesModifiers: extra.takesModifiers ?? false,
    serial: extra.serial ?? false,
  };
}

const CANONICAL: BuiltinType[] = [
  t("smallint", "integer", "integer"),
  t("integer", "integer", "integer"),
  t("bigint", "bigint", "integer"),
  t("smallserial", "integer", "integer", { cast: "smallint", serial: true }),
  t("serial", "integer", "integer", { cast: "integer", serial: true }),
  t("bigserial", "bigint", "integer", { cast: "bigint", serial: true }),
  t("numeric", "numeric", "numeric", { takesModifiers: true }),
  t("real", "float", "float"),
  t("double precision", "float", "float"),
  t("text", "text", "text"),
  t("varchar", "text", "text", { takesModifiers: true }),
  t("character", "text", "text", { cast: "bpchar", takesModifiers: true }),
  t("citext", "text", "citext"),
  t("boolean", "boolean", "boolean"),
  t("date", "date", "date"),
  t("timestamptz", "timestamptz", "timestamptz", { takesModifiers: true }),
  t("timestamp", "timestamp", "timestamp", { takesModifiers: true }),
  t("time", "time", "time", { takesModifiers: true }),
  t("timetz", "time", "timetz", { takesModifiers: true }),
  t("uuid", "uuid", "uuid"),
  t("jsonb", "jsonb", "jsonb"),
  t("bytea", "bytea", "bytea"),
  t("json", "other", "json"),
  t("interval", "other", "interval", { takesModifiers: true }),
  t("money", "other", "money"),
  t("inet", "other", "inet"),
  t("cidr", "other", "cidr"),
  t("macaddr", "other", "macaddr"),
  t("tsvector", "other", "tsvector"),
  t("tsquery", "other", "tsquery"),
  t("xml", "other", "xml"),
  t("oid", "other", "oid"),
  t("point", "other", "point"),
  t("bit", "other", "bit", { cast: "varbit", takesModifiers: true }),
  t("varbit", "other", "varbit", { takesModifiers: true }),
];

/** Catalog and SQL-standard spellings that name a canonical type. */
const ALIASES: Record<string, string> = {
  int: "integer",
  int2: "smallint",
  int4: "integer",
  int8: "bigint",
  serial2: "smallserial",
  serial4: "serial",
  serial8: "bigserial",
  decimal: "numeric",
  float4: "real",
  float8: "double precision",
  double: "double precision",
  float: "double precision",
  "character varying": "varchar",
  char: "character",
  bpchar: "character",
  bool: "boolean",
  "timestamp with time zone": "timestamptz",
  "timestamp without time zone": "timestamp",
  "time without time zone": "time",
  "time with time zone": "timetz",
  "bit varying": "varbit",
};

const BY_NAME = new Map<string, BuiltinType>(CANONICAL.map((b) => [b.name, b]));

/**
 * Every built-in spelling (lower case, words joined by one space) and the
 * canonical name it becomes: each canonical name, then each alias. The
 * parser writes the canonical name into `TypeRef.name`; the TextMate grammar,
 * the language server's completion and docs/language.md list the spellings.
 */
export const BUILTIN_TYPES: ReadonlyMap<string, string> = new Map([
  ...CANONICAL.map((b): [string, string] => [b.name, b.name]),
  ...Object.entries(ALIASES),
]);

/** The built-in type a name denotes (case-insensitive, aliases accepted), or undefined. */
export function lookupBuiltin(name: string): BuiltinType | undefined {
  const lower = name.toLowerCase();
  return BY_NAME.get(ALIASES[lower] ?? lower);
}

/**
 * The name `name` was probably meant to be, when it is neither built in nor
 * one of `userTypes` (the file's enums and domains) and is one edit away
 * from one of them (two for names of eight characters or more); undefined
 * otherwise. The parser reports such a name as an `unknown-type` error with
 * the suggestion; any other unknown name is taken for an extension type,
 * which the validator reports as an `unknown-type` warning. One rule, two
 * severities (docs/decisions/0101-unknown-types-in-the-parser.md, 0201).
 */
export function probableTypeTypo(name: string, userTypes: ReadonlySet<string>): string | undefined {
  if (lookupBuiltin(name) !== undefined || userTypes.has(name)) return undefined;
  const candidates = [...new Set(BUILTIN_TYPES.values()), ...userTypes];
  return closest(name, candidates, name.length >= 8 ? 2 : 1);
}
