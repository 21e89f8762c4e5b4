/**
 * How `resc pull` names what it adopts, shared with the drift gate
 * (`catalog/expressible.ts`): a database name becomes a plain lowercase
 * name of the language (`"createdAt"` → `created_at`, `"UserAccount"` →
 * `user_account`), and the database name is kept with `@map`/`@@map`
 * whenever the two differ (docs/decisions/1257-database-names.md). Names are
 * unique where the language needs them to be: tables, enums and domains
 * share one namespace across every schema pulled (a second `customer`
 * becomes `sales_customer`), columns are unique within their table.
 */
import { lookupBuiltin } from "../language/types.js";
import { placedKey, type Catalog, type Placed } from "./model.js";

const IDENT = /^[a-z_][a-z0-9_]*$/;
/** Declaration keywords: a type is read where a column's type is, so an enum or domain cannot be called one. */
const KEYWORDS = new Set(["api", "generate", "enum", "domain", "table", "resource", "security"]);

/**
 * Whether `s` can name a table or a column as written: plain lowercase. The language's keywords are names there
 * (`table resource { domain text? }` parses), so a column named `table` or `domain` keeps its name.
 */
export const ident = (s: string): boolean => IDENT.test(s);
/** Whether `s` can name an enum or a domain: plain lowercase, no keyword, no built-in type. */
export const typeIdent = (s: string): boolean => IDENT.test(s) && !KEYWORDS.has(s) && lookupBuiltin(s) === undefined;
/** Enum values may be any identifier, upper case included (`G`, `PG`); others are quoted. */
export const bareValue = (s: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !KEYWORDS.has(s);

/**
 * The language's spelling of a database name: words split at case changes
 * (`createdAt`, `HTTPServer`, `Order2Item`), joined by `_`, lowercase;
 * anything but ASCII letters and digits becomes `_`; a leading digit gets
 * a `_` before it. A name that is already plain stays as it is.
 */
export function languageName(db: string): string {
  if (ident(db)) return db;
  const words = db
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (words === "") return "x";
  return /^[0-9]/.test(words) ? `_${words}` : words;
}

/** The first of `base`, `base_2`, `base_3`, … that `taken` does not hold and `fits` accepts; recorded as taken. */
function claim(base: string, taken: Set<string>, fits: (s: string) => boolean = () => true): string {
  let name = base;
  for (let n = 2; taken.has(name) || !fits(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** The language names of a catalog's tables, types and columns. */
export interface NameBook {
  /** By {@link placedKey} of the table. */
  table(t: Placed): string;
  /** By the table's {@link placedKey} and the column's database name. */
  column(t: Placed, column: string): string;
  /**
   * The language name of an enum or domain by its `format_type` spelling
   * (`"Name"`, `billing.status`), as column types name it.
   */
  readonly types: ReadonlyMap<string, string>;
}

/**
 * Names every table, enum, domain and column of `catalog`. Objects of
 * `public` are named first, so a database in `public` alone keeps every
 * name it had; an object of another namespace whose name is taken is
 * prefixed with its namespace. A type name is never a keyword or a
 * built-in type (`domain name` becomes `name_domain`).
 */
export function nameBook(catalog: Catalog): NameBook {
  const taken = new Set<string>();
  const publicFirst = <T extends Placed>(xs: readonly T[]): T[] =>
    [...xs].sort((a, b) => Number(a.schema !== "public") - Number(b.schema !== "public"));
  const pick = (x: Placed, fits?: (s: string) => boolean, suffix = ""): string => {
    const plain = languageName(x.name) + suffix;
    const base =
      (taken.has(plain) || (fits && !fits(plain))) && x.schema !== "public"
        ? languageName(`${x.schema}_${x.name}`) + suffix
        : plain;
    return claim(base, taken, fits);
  };
  const types = new Map<string, string>();
  for (const e of publicFirst(catalog.enums))
    types.set(e.spelled, pick(e, typeIdent, typeIdent(languageName(e.name)) ? "" : "_enum"));
  for (const d of publicFirst(catalog.domains))
    types.set(d.spelled, pick(d, typeIdent, typeIdent(languageName(d.name)) ? "" : "_domain"));
  const tables = new Map<string, string>();
  for (const t of publicFirst(catalog.tables)) tables.set(placedKey(t), pick(t));
  const columns = new Map<string, Map<string, string>>();
  for (const t of catalog.tables) {
    const used = new Set<string>();
    columns.set(placedKey(t), new Map(t.columns.map((c) => [c.name, claim(languageName(c.name), used)])));
  }
  return {
    table: (t) => tables.get(placedKey(t)) ?? languageName(t.name),
    column: (t, c) => columns.get(placedKey(t))?.get(c) ?? languageName(c),
    types,
  };
}

/**
 * The language's spelling of a catalog type (`format_type`), or undefined
 * when it has none. `types` gives the language name of each enum and domain
 * by its spelling ({@link NameBook.types}).
 */
export function resourceType(formatted: string, types: ReadonlyMap<string, string>): string | undefined {
  let t = formatted;
  let arr = "";
  while (t.endsWith("[]")) {
    arr += "[]";
    t = t.slice(0, -2);
  }
  const user = types.get(t);
  if (user !== undefined) return user + arr;
  const tz = /^(timestamp|time)(\(\d+\))? with(out)? time zone$/.exec(t);
  if (tz) return `${tz[1]}${tz[3] ? "" : "tz"}${tz[2] ?? ""}${arr}`;
  const m = /^([a-z ]+?)(\([0-9, ]*\))?$/.exec(t);
  if (!m) return undefined;
  const b = lookupBuiltin(m[1]!);
  if (!b) return undefined;
  const name = b.name === "double precision" ? "float8" : b.name;
  return `${name}${b.takesModifiers && m[2] ? m[2].replace(/\s+/g, "") : ""}${arr}`;
}
