/**
 * The fixed part of every generated command tree, emitted as `cli.ts`:
 * oclif commands built from resource descriptions, sending requests through
 * the typed client's HTTP core (docs/decisions/1052-command-tree.md). It
 * imports `@oclif/core` and `../client/http.js` only.
 *
 * Kept as text because it is emitted, not run, by the compiler; the tests
 * compile the emitted tree under strict TypeScript and run it as a binary.
 * Backticks and `${` inside are written as substitutions.
 */

/** The source text (prettier-formatted TypeScript). */
export const TREE_CORE = String.raw`/**
 * The machinery of a generated command tree: oclif commands built from the
 * resource descriptions in ${"`"}index.ts${"`"}, sending requests through the typed
 * client's HTTP core. It depends on ${"`"}@oclif/core${"`"} and the typed client
 * only; it holds no database credential.
 *
 * Your project needs the npm package ${"`"}@oclif/core${"`"} (version 4):
 * ${"`"}npm install @oclif/core${"`"}. The code is ES modules with ${"`"}.js${"`"} import
 * specifiers; it compiles under ${"`"}"module": "NodeNext"${"`"} in an ESM or a
 * CommonJS project (docs/clients.md, "A binary"). It uses Node's API and
 * says so itself: TypeScript 7 gives a file no Node types its project did
 * not list, so the directive below brings ${"`"}@types/node${"`"} and the API is imported.
 */
/// <reference types="node" />
import {
  Args,
  Command,
  Config,
  Flags,
  flush,
  handle,
  run,
  type Interfaces,
} from "@oclif/core";
import {
  argv as processArgv,
  cwd,
  env as processEnv,
  stderr,
  stdout,
} from "node:process";
import {
  DEFAULT_BASE_URL,
  HttpClient,
  ProblemError,
  TransportError,
  type ApiRequest,
} from "../client/http.js";

/** How a create or update flag's text becomes a JSON body value. */
export type FieldCodec = "text" | "number" | "integer" | "boolean" | "json";

/** A column a create or update command sets. */
export interface FieldSpec {
  column: string;
  /** The column's SQL type, for the help. */
  type: string;
  codec: FieldCodec;
  /** An array column: the flag takes a JSON array or comma-separated items. */
  array?: boolean;
  /** Create only: the column has no default and is not nullable. */
  required?: boolean;
  /** Enum values, checked before the request. */
  values?: string[];
  description?: string;
}

/** A filterable column of a list command. */
export interface FilterSpec {
  column: string;
  type: string;
  /** The operators the service accepts on it, alphabetical. */
  operators: string[];
  values?: string[];
  /** A document (jsonb) column: the service takes no bare value, only operator.value (hasdoc.<JSON>). */
  document?: boolean;
}

/** The list operation of a resource. */
export interface ListSpec {
  filters: FilterSpec[];
  sortable: string[];
  selectable: string[];
  expandable: string[];
  searchable: boolean;
}

/** One exposed resource and its exposed operations. */
export interface ResourceSpec {
  /** The command (topic) name: the path without its slash. */
  name: string;
  path: string;
  description?: string;
  /** The single-column primary key, which item commands take as their argument. */
  key?: { column: string; type: string };
  list?: ListSpec;
  get?: { selectable: string[]; expandable: string[] };
  create?: { fields: FieldSpec[] };
  update?: { fields: FieldSpec[]; nullable: string[] };
  delete?: boolean;
}

/** The binary: its name, the prefix of its environment variables, its version. */
export interface TreeInfo {
  bin: string;
  envPrefix: string;
  version: string;
  description?: string;
}

/** What the hand-written main may pass. */
export interface TreeOptions {
  /** A client value: its base address and token rank below the flags and above the environment; its transport is used. */
  client?: HttpClient;
  /** The environment; default ${"`"}process.env${"`"}. */
  env?: Record<string, string | undefined>;
}

/** The command tree of one service. */
export interface CommandTree {
  /** Command classes by oclif id (${"`"}tasks:list${"`"}). */
  readonly commands: Readonly<Record<string, Command.Class>>;
  /** Runs one command line; rejects with oclif's errors (an exit request included). */
  run(argv?: string[]): Promise<void>;
  /** Runs one command line as a binary does: errors are printed and the process exits non-zero. */
  execute(argv?: string[]): Promise<void>;
}

/** Flags every command has (spec: Command-line client, ${"`"}--base-url${"`"}, ${"`"}--token${"`"}, ${"`"}--compact${"`"}). */
const FIXED_EVERYWHERE = ["base-url", "token", "compact", "help"];

interface Context {
  info: TreeInfo;
  options: TreeOptions;
}

/** ${"`"}due_on${"`"} → ${"`"}due-on${"`"}. */
function kebab(name: string): string {
  return name.replace(/_/g, "-");
}

/**
 * The flag spelling of a column: its kebab-case name, or ${"`"}col-<name>${"`"} when
 * that is one of the command's fixed flags (docs/decisions/1052-command-tree.md).
 */
function columnFlag(
  column: string,
  fixed: readonly string[],
): { name: string; aliases: string[] } {
  const clash = fixed.includes(kebab(column)) || fixed.includes(column);
  const name = clash ? "col-" + kebab(column) : kebab(column);
  const snake = clash ? "col_" + column : column;
  return { name, aliases: snake === name ? [] : [snake] };
}

/** Help text naming the other spelling of a flag. */
function alsoSpelled(aliases: readonly string[]): string {
  return aliases.length === 0 ? "" : " Also --" + aliases.join(", --") + ".";
}

/** The one-line, comma-joined form of a flag that takes lists and may repeat. */
function joined(values: readonly string[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  return values.join(",");
}

/** Reads JSON text without parsing numbers, so the service's values are printed exactly as sent. */
function skipString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"')
    i += text.charAt(i) === "\\" ? 2 : 1;
  return i + 1;
}

/** Re-indents JSON text (2 spaces, as ${"`"}JSON.stringify(v, null, 2)${"`"}), or strips its whitespace; values are kept byte for byte. */
export function formatJson(text: string, pretty: boolean): string {
  let out = "";
  let depth = 0;
  const newline = (): string => (pretty ? "\n" + "  ".repeat(depth) : "");
  for (let i = 0; i < text.length;) {
    const c = text.charAt(i);
    if (c === '"') {
      const end = skipString(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (c === " " || c === "\n" || c === "\r" || c === "\t") {
      i++;
    } else if (c === "{" || c === "[") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text.charAt(j))) j++;
      if (text.charAt(j) === (c === "{" ? "}" : "]")) {
        out += c + text.charAt(j);
        i = j + 1;
      } else {
        depth++;
        out += c + newline();
        i++;
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += newline() + c;
      i++;
    } else if (c === ",") {
      out += "," + newline();
      i++;
    } else if (c === ":") {
      out += pretty ? ": " : ":";
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The members of a JSON object as raw value texts, in order; keys decoded. */
export function objectMembers(text: string): [string, string][] {
  const out: [string, string][] = [];
  let i = text.indexOf("{") + 1;
  const skipSpace = (): void => {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
  };
  for (;;) {
    skipSpace();
    if (i >= text.length || text.charAt(i) === "}") return out;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = keyEnd;
    skipSpace();
    i++; // the colon
    skipSpace();
    const start = i;
    let depth = 0;
    while (i < text.length) {
      const c = text.charAt(i);
      if (c === '"') {
        i = skipString(text, i);
        continue;
      }
      if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        if (depth === 0) break;
        depth--;
      } else if (c === "," && depth === 0) break;
      i++;
    }
    out.push([key, text.slice(start, i).trim()]);
    skipSpace();
    if (text.charAt(i) === ",") i++;
  }
}

function writeOut(text: string): void {
  stdout.write(text + "\n");
}

/** A refusal before any request was sent. */
class UsageError extends Error {}

/** Prints a failure as the spec's rule 5 asks and returns the exit code. */
function reportFailure(e: unknown): number | undefined {
  const lines: string[] = [];
  if (e instanceof ProblemError) {
    lines.push("Error: " + e.message + " (HTTP " + e.status + ")");
    for (const item of e.problem.errors ?? []) {
      lines.push(item.location + ": " + item.detail);
      if (item.allowed && item.allowed.length > 0)
        lines.push("allowed: " + item.allowed.join(", "));
    }
  } else if (e instanceof TransportError || e instanceof UsageError) {
    lines.push("Error: " + e.message);
  } else {
    return undefined;
  }
  stderr.write(lines.join("\n") + "\n");
  return e instanceof UsageError ? 2 : 1;
}

/** The value of a create or update flag in the JSON body (docs/decisions/1052-command-tree.md). */
function fieldValue(field: FieldSpec, flag: string, text: string): unknown {
  if (field.array) {
    const trimmed = text.trim();
    if (trimmed.startsWith("[")) {
      try {
        return JSON.parse(trimmed) as unknown;
      } catch {
        throw new UsageError("--" + flag + ": not a JSON array: " + text);
      }
    }
    if (trimmed === "") return [];
    return text.split(",").map((item) => scalarValue(field, flag, item));
  }
  return scalarValue(field, flag, text);
}

function scalarValue(field: FieldSpec, flag: string, text: string): unknown {
  switch (field.codec) {
    case "number":
      return /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim())
        ? Number(text)
        : text;
    case "integer": {
      const n = Number(text);
      return /^-?\d+$/.test(text.trim()) && Number.isSafeInteger(n) ? n : text;
    }
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "json":
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new UsageError("--" + flag + ": not a JSON document: " + text);
      }
    default:
      return text;
  }
}

/** The flags of a body, by column, with the flag names they were given under. */
function bodyFlags(
  fields: readonly FieldSpec[],
  fixed: readonly string[],
  create: boolean,
): Record<string, FieldFlag> {
  const out: Record<string, FieldFlag> = {};
  for (const field of fields) {
    const { name, aliases } = columnFlag(field.column, fixed);
    const what = field.description
      ? field.description.replace(/[.]$/, "")
      : "Value of " + field.column;
    const shape = field.array
      ? "; a JSON array or comma-separated items"
      : field.codec === "json"
        ? "; JSON"
        : "";
    out[name] = {
      field,
      flag: Flags.string({
        description:
          what + " (" + field.type + shape + ")." + alsoSpelled(aliases),
        aliases,
        required: create && field.required === true,
        ...(field.values ? { options: field.values } : {}),
      }),
    };
  }
  return out;
}

interface FieldFlag {
  field: FieldSpec;
  flag: Interfaces.OptionFlag<string | undefined>;
}

/** The common flags (${"`"}--base-url${"`"}, ${"`"}--token${"`"}, ${"`"}--compact${"`"}). */
function commonFlags(ctx: Context) {
  const prefix = ctx.info.envPrefix;
  return {
    "base-url": Flags.string({
      description:
        "Base address of the service; else the client's, else $" +
        prefix +
        "_BASE_URL, else " +
        DEFAULT_BASE_URL +
        ".",
      helpGroup: "GLOBAL",
    }),
    token: Flags.string({
      description:
        "Bearer token; else the client's, else $" + prefix + "_TOKEN.",
      helpGroup: "GLOBAL",
    }),
    compact: Flags.boolean({
      description: "Print the JSON on one line.",
      helpGroup: "GLOBAL",
    }),
  };
}

/** The base for every generated command: client resolution, output, failures. */
abstract class ResourceCommand extends Command {
  protected abstract readonly ctx: Context;
  protected abstract execute(
    flags: Record<string, unknown>,
    args: Record<string, unknown>,
  ): Promise<void>;

  /** Flag, then the client value, then the environment, then the default (spec: Command-line client rule 2). */
  protected client(flags: Record<string, unknown>): HttpClient {
    const env = this.ctx.options.env ?? processEnv;
    const given = this.ctx.options.client;
    const prefix = this.ctx.info.envPrefix;
    const pick = (...values: (string | undefined)[]): string | undefined =>
      values.find((v) => v !== undefined && v !== "");
    return new HttpClient({
      baseURL:
        pick(
          flags["base-url"] as string | undefined,
          given?.baseURL,
          env[prefix + "_BASE_URL"],
        ) ?? DEFAULT_BASE_URL,
      token: pick(
        flags["token"] as string | undefined,
        given?.token,
        env[prefix + "_TOKEN"],
      ),
      transport: given?.transport,
    });
  }

  protected print(flags: Record<string, unknown>, json: string): void {
    if (json.trim() !== "")
      writeOut(formatJson(json, flags["compact"] !== true));
  }

  async run(): Promise<void> {
    const { flags, args } = await this.parse();
    try {
      await this.execute(
        flags as Record<string, unknown>,
        args as Record<string, unknown>,
      );
    } catch (e) {
      const code = reportFailure(e);
      if (code === undefined) throw e;
      this.exit(code);
    }
  }
}

function listCommand(
  ctx: Context,
  r: ResourceSpec,
  spec: ListSpec,
): Command.Class {
  const fixed = [
    ...FIXED_EVERYWHERE,
    "sort",
    "select",
    "expand",
    "all",
    "search",
    "page",
    "per-page",
    "cursor",
    "count",
    "or",
    "and",
    "not",
  ];
  const filterFlags: Record<string, string> = {};
  const flags: Interfaces.FlagInput = { ...commonFlags(ctx) };
  for (const filter of spec.filters) {
    const { name, aliases } = columnFlag(filter.column, fixed);
    filterFlags[name] = filter.column;
    const values = filter.values
      ? " Values: " + filter.values.join(", ") + "."
      : "";
    flags[name] = Flags.string({
      multiple: true,
      aliases,
      helpGroup: "FILTER",
      helpValue: "op.value",
      description:
        "Filter on " +
        filter.column +
        " (" +
        filter.type +
        (filter.document
          ? "): operator.value (a document column takes no bare value: write hasdoc.<JSON document>); repeat to conjoin. Operators: "
          : "): operator.value, or a bare value for eq; repeat to conjoin. Operators: ") +
        filter.operators.join(", ") +
        "." +
        values +
        alsoSpelled(aliases),
    });
  }
  flags["sort"] = Flags.string({
    multiple: true,
    description:
      "Ordering, comma-separated, - for descending. Sortable: " +
      (spec.sortable.join(", ") || "none") +
      ".",
  });
  flags["select"] = Flags.string({
    multiple: true,
    description:
      "Columns to return, comma-separated. Selectable: " +
      spec.selectable.join(", ") +
      ".",
  });
  if (spec.expandable.length > 0) {
    flags["expand"] = Flags.string({
      multiple: true,
      description:
        "Relations to expand, comma-separated. Expandable: " +
        spec.expandable.join(", ") +
        ".",
    });
  }
  if (spec.searchable)
    flags["search"] = Flags.string({
      description:
        "Case-insensitive substring search over the searchable columns.",
    });
  const groups: Record<string, string> = {
    or: "Any child matches",
    and: "Every child matches",
    not: "NOT of the conjunction of the children",
  };
  for (const [g, meaning] of Object.entries(groups)) {
    flags[g] = Flags.string({
      multiple: true,
      helpGroup: "FILTER",
      helpValue: "(col.op.value,…)",
      description:
        meaning +
        "; children are column.operator.value or nested or(…), and(…), not(…). Repeat to conjoin.",
    });
  }
  flags["page"] = Flags.integer({
    min: 1,
    description: "Page number (offset paging).",
  });
  flags["per-page"] = Flags.integer({
    min: 1,
    description: "Rows per page; the service caps it.",
  });
  flags["cursor"] = Flags.string({
    description: "Resume at the next_cursor of a previous page (same query).",
  });
  flags["count"] = Flags.boolean({
    description: "Add total, the size of the whole result.",
  });
  flags["all"] = Flags.boolean({
    description:
      "Follow next_cursor to the end and print every row as one page.",
  });

  return class extends ResourceCommand {
    static override summary = "List " + r.name + " (GET " + r.path + ").";
    static override flags = flags;
    protected readonly ctx = ctx;

    protected async execute(f: Record<string, unknown>): Promise<void> {
      const query: [string, string][] = [];
      for (const [flag, column] of Object.entries(filterFlags)) {
        for (const value of (f[flag] as string[] | undefined) ?? [])
          query.push([column, value]);
      }
      for (const g of ["or", "and", "not"])
        for (const value of (f[g] as string[] | undefined) ?? [])
          query.push([g, value]);
      const sort = joined(f["sort"] as string[] | undefined);
      if (sort !== undefined) query.push(["sort", sort]);
      const select = joined(f["select"] as string[] | undefined);
      if (select !== undefined) query.push(["select", select]);
      const expand = joined(f["expand"] as string[] | undefined);
      if (expand !== undefined) query.push(["expand", expand]);
      if (typeof f["search"] === "string") query.push(["search", f["search"]]);
      if (typeof f["page"] === "number")
        query.push(["page", String(f["page"])]);
      if (typeof f["per-page"] === "number")
        query.push(["per_page", String(f["per-page"])]);
      if (typeof f["cursor"] === "string") query.push(["cursor", f["cursor"]]);
      if (f["count"] === true) query.push(["count", "exact"]);
      const client = this.client(f);
      const first = await client.do({ method: "GET", path: r.path, query });
      if (f["all"] !== true) return this.print(f, first);
      this.print(f, await followCursors(client, r.path, query, first));
    }
  };
}

/** Fetches the pages after ${"`"}first${"`"} and merges them into one page (${"`"}--all${"`"}). */
async function followCursors(
  client: HttpClient,
  path: string,
  query: [string, string][],
  first: string,
): Promise<string> {
  const progress = stderr.isTTY === true;
  const base = query.filter(
    ([name]) => name !== "page" && name !== "cursor" && name !== "count",
  );
  const items: string[] = [];
  let members = new Map(objectMembers(first));
  const head = members;
  let pages = 1;
  const seen = new Set<string>();
  for (;;) {
    const inner = (members.get("items") ?? "[]").trim().slice(1, -1).trim();
    if (inner !== "") items.push(inner);
    const cursor = members.get("next_cursor");
    // A cursor that does not move would loop forever; the pages so far are all there is.
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
    if (progress) stderr.write("\r" + pages + " pages read…");
    const request: ApiRequest = {
      method: "GET",
      path,
      query: [...base, ["cursor", JSON.parse(cursor) as string]],
    };
    members = new Map(objectMembers(await client.do(request)));
    pages++;
  }
  if (progress) stderr.write("\r" + pages + " pages read.\n");
  let merged = '{"items":[' + items.join(",") + "]";
  const perPage = head.get("per_page");
  if (perPage !== undefined) merged += ',"per_page":' + perPage;
  merged += ',"has_more":false';
  const total = head.get("total");
  if (total !== undefined) merged += ',"total":' + total;
  return merged + "}";
}

function keyArg(r: ResourceSpec) {
  const key = r.key ?? { column: "id", type: "text" };
  return {
    id: Args.string({
      required: true,
      description: "The " + key.column + " (" + key.type + ") of the row.",
    }),
  };
}

function getCommand(
  ctx: Context,
  r: ResourceSpec,
  spec: { selectable: string[]; expandable: string[] },
): Command.Class {
  const flags: Interfaces.FlagInput = { ...commonFlags(ctx) };
  flags["select"] = Flags.string({
    multiple: true,
    multipleNonGreedy: true,
    description:
      "Columns to print, comma-separated (the key is always kept). Selectable: " +
      spec.selectable.join(", ") +
      ".",
  });
  if (spec.expandable.length > 0) {
    flags["expand"] = Flags.string({
      multiple: true,
      multipleNonGreedy: true,
      description:
        "Relations to expand, comma-separated. Expandable: " +
        spec.expandable.join(", ") +
        ".",
    });
  }
  return class extends ResourceCommand {
    static override summary =
      "Read one of " + r.name + " (GET " + r.path + "/{id}).";
    static override args = keyArg(r);
    static override flags = flags;
    protected readonly ctx = ctx;

    protected async execute(
      f: Record<string, unknown>,
      a: Record<string, unknown>,
    ): Promise<void> {
      const expand = joined(f["expand"] as string[] | undefined);
      const select = joined(f["select"] as string[] | undefined);
      const keep =
        select === undefined
          ? undefined
          : projection(select, spec.selectable, r, expand);
      const query: [string, string][] =
        expand === undefined ? [] : [["expand", expand]];
      const row = await this.client(f).do({
        method: "GET",
        path: itemPath(r.path, a["id"] as string),
        query,
      });
      this.print(f, keep === undefined ? row : project(row, keep));
    }
  };
}

/**
 * The members a ${"`"}get --select${"`"} keeps: the named columns, the key and the
 * expanded relations (a read takes no ${"`"}select${"`"}: docs/decisions/1052-command-tree.md).
 * @throws UsageError naming a column that cannot be selected, before any request
 */
function projection(
  select: string,
  selectable: readonly string[],
  r: ResourceSpec,
  expand: string | undefined,
): Set<string> {
  const names = select.split(",").map((s) => s.trim());
  const unknown = names.filter((n) => !selectable.includes(n));
  if (unknown.length > 0) {
    throw new UsageError(
      "--select: unknown column " +
        unknown.join(", ") +
        "; selectable: " +
        selectable.join(", "),
    );
  }
  const expanded =
    expand === undefined ? [] : expand.split(",").map((s) => s.trim());
  return new Set([...(r.key ? [r.key.column] : []), ...names, ...expanded]);
}

/** The row's members named in ${"`"}keep${"`"}, in the row's order, values as sent. */
function project(row: string, keep: ReadonlySet<string>): string {
  const members = objectMembers(row).filter(([k]) => keep.has(k));
  return (
    "{" + members.map(([k, v]) => JSON.stringify(k) + ":" + v).join(",") + "}"
  );
}

function itemPath(path: string, id: string): string {
  return path + "/" + encodeURIComponent(id);
}

function bodyOf(
  fieldFlags: Record<string, FieldFlag>,
  f: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [flag, { field }] of Object.entries(fieldFlags)) {
    const text = f[flag];
    if (typeof text === "string")
      body[field.column] = fieldValue(field, flag, text);
  }
  return body;
}

function createCommand(
  ctx: Context,
  r: ResourceSpec,
  spec: { fields: FieldSpec[] },
): Command.Class {
  const fieldFlags = bodyFlags(spec.fields, FIXED_EVERYWHERE, true);
  const flags: Interfaces.FlagInput = { ...commonFlags(ctx) };
  for (const [name, { flag }] of Object.entries(fieldFlags)) flags[name] = flag;
  return class extends ResourceCommand {
    static override summary =
      "Create one of " + r.name + " (POST " + r.path + ").";
    static override flags = flags;
    protected readonly ctx = ctx;

    protected async execute(f: Record<string, unknown>): Promise<void> {
      this.print(
        f,
        await this.client(f).do({
          method: "POST",
          path: r.path,
          body: bodyOf(fieldFlags, f),
        }),
      );
    }
  };
}

function updateCommand(
  ctx: Context,
  r: ResourceSpec,
  spec: { fields: FieldSpec[]; nullable: string[] },
): Command.Class {
  const fieldFlags = bodyFlags(
    spec.fields,
    [...FIXED_EVERYWHERE, "set-null"],
    false,
  );
  const flags: Interfaces.FlagInput = { ...commonFlags(ctx) };
  for (const [name, { flag }] of Object.entries(fieldFlags)) flags[name] = flag;
  if (spec.nullable.length > 0) {
    // Both spellings, as every column flag takes them: --set-null birth-date or birth_date.
    const spellings = [
      ...new Set([...spec.nullable, ...spec.nullable.map(kebab)]),
    ];
    flags["set-null"] = Flags.string({
      multiple: true,
      delimiter: ",",
      options: spellings,
      description:
        "Set columns to null, comma-separated or repeated. Nullable: " +
        spec.nullable.map(kebab).join(", ") +
        ".",
    });
  }
  return class extends ResourceCommand {
    static override summary =
      "Update one of " +
      r.name +
      " (PATCH " +
      r.path +
      "/{id}); only the flags given are sent.";
    static override args = keyArg(r);
    static override flags = flags;
    protected readonly ctx = ctx;

    protected async execute(
      f: Record<string, unknown>,
      a: Record<string, unknown>,
    ): Promise<void> {
      const body = bodyOf(fieldFlags, f);
      for (const given of (f["set-null"] as string[] | undefined) ?? []) {
        const column =
          spec.nullable.find((c) => c === given || kebab(c) === given) ?? given;
        if (column in body)
          throw new UsageError(
            "--set-null " +
              column +
              " conflicts with a value given for " +
              column,
          );
        body[column] = null;
      }
      // An update that changes nothing is the caller's mistake: said here, not after a round trip.
      if (Object.keys(body).length === 0)
        throw new UsageError(
          "nothing to update: give at least one field flag" +
            (spec.nullable.length > 0 ? " or --set-null" : "") +
            " (see --help)",
        );
      this.print(
        f,
        await this.client(f).do({
          method: "PATCH",
          path: itemPath(r.path, a["id"] as string),
          body,
        }),
      );
    }
  };
}

function deleteCommand(ctx: Context, r: ResourceSpec): Command.Class {
  // A delete answers 204 with nothing to print: --compact would shape no output, so it is not offered.
  const common = commonFlags(ctx);
  const flags = { "base-url": common["base-url"], token: common.token };
  return class extends ResourceCommand {
    static override summary =
      "Delete one of " + r.name + " (DELETE " + r.path + "/{id}).";
    static override args = keyArg(r);
    static override flags = flags;
    protected readonly ctx = ctx;

    protected async execute(
      f: Record<string, unknown>,
      a: Record<string, unknown>,
    ): Promise<void> {
      this.print(
        f,
        await this.client(f).do({
          method: "DELETE",
          path: itemPath(r.path, a["id"] as string),
        }),
      );
    }
  };
}

/** oclif's cached form of a command, built from the class itself (no manifest file). */
function loadable(
  id: string,
  cmd: Command.Class,
  plugin: string,
): Command.Loadable {
  const named = <T extends object>(m: Record<string, T> | undefined) =>
    Object.fromEntries(
      Object.entries(m ?? {}).map(([name, v]) => [name, { ...v, name }]),
    );
  const cached = {
    id,
    aliases: [],
    hiddenAliases: [],
    args: named(cmd.args),
    flags: named(cmd.flags),
    summary: cmd.summary,
    description: cmd.description,
    hidden: false,
    strict: true,
    pluginName: plugin,
    pluginAlias: plugin,
    pluginType: "core",
    load: async () => cmd,
  };
  return cached as unknown as Command.Loadable;
}

/**
 * Builds the command tree of a service: ${"`"}<bin> <resource> list | get <id> |
 * create | update <id> | delete <id>${"`"}, one subcommand per exposed operation
 * (spec: Command-line client).
 */
export function createCommandTree(
  info: TreeInfo,
  resources: readonly ResourceSpec[],
  options: TreeOptions = {},
): CommandTree {
  const ctx: Context = { info, options };
  const commands: Record<string, Command.Class> = {};
  const topics: Interfaces.Topic[] = [];
  for (const r of resources) {
    topics.push({ name: r.name, description: r.description ?? r.path });
    if (r.list) commands[r.name + ":list"] = listCommand(ctx, r, r.list);
    if (r.get && r.key) commands[r.name + ":get"] = getCommand(ctx, r, r.get);
    if (r.create)
      commands[r.name + ":create"] = createCommand(ctx, r, r.create);
    if (r.update && r.key)
      commands[r.name + ":update"] = updateCommand(ctx, r, r.update);
    if (r.delete && r.key) commands[r.name + ":delete"] = deleteCommand(ctx, r);
  }
  const root = cwd();
  const pjson = {
    name: info.bin,
    version: info.version,
    description: info.description,
    oclif: {
      bin: info.bin,
      dirname: info.bin,
      topicSeparator: " ",
      topics: Object.fromEntries(
        topics.map((t) => [t.name, { description: t.description }]),
      ),
    },
  } as unknown as Interfaces.PJSON;
  const plugin = {
    _base: info.bin,
    alias: info.bin,
    name: info.bin,
    version: info.version,
    root,
    pjson,
    isRoot: true,
    type: "core",
    valid: true,
    moduleType: "module",
    hasManifest: false,
    commandsDir: undefined,
    hooks: {},
    options: { root },
    topics,
    commands: Object.entries(commands).map(([id, cmd]) =>
      loadable(id, cmd, info.bin),
    ),
    commandIDs: Object.keys(commands),
    load: async () => {},
    findCommand: async (id: string) => commands[id],
  } as unknown as Interfaces.Plugin;

  const runTree = async (
    argv: string[] = processArgv.slice(2),
  ): Promise<void> => {
    const config = await Config.load({
      root,
      pjson,
      plugins: new Map([[info.bin, plugin]]),
    });
    await run(argv, config);
  };
  return {
    commands,
    run: runTree,
    async execute(argv?: string[]): Promise<void> {
      try {
        await runTree(argv);
        await flush();
      } catch (e) {
        await handle(e as Error);
      }
    },
  };
}
`;
