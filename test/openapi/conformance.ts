/**
 * Checks a running service against its OpenAPI document, both ways:
 * everything the document lists is served (each parameter in a valid form
 * answers 200, each listed operator is accepted, write routes exist), and
 * nothing it does not list is (other methods answer the app's 404, other
 * parameters a 400). Every answer is also validated against the response
 * the document gives for its status (schema, media type, Location header).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { OpenApiDocument, JsonSchema } from "../../compiler/index.js";
import type { Operation, Parameter, PathItem, Response } from "../../compiler/backends/openapi/types.js";
import type { ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import type { Answer, TestClient } from "../support/service.js";
import { fullDescription, params } from "./deref.js";
import { OPERATOR_ALIASES, OPERATOR_VALUES } from "../../runtime/operators.js";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** What the checks run against. */
export interface LiveService {
  doc: OpenApiDocument;
  service: ServiceDescriptor;
  client: TestClient;
}

type Method = "get" | "post" | "patch" | "delete";
const METHODS: Method[] = ["get", "post", "patch", "delete"];

/** Validates answers against the document's responses. */
export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addFormat("decimal", {
      type: "string",
      validate: (s: string) => /^(-?\d+(\.\d+)?|NaN|-?Infinity)$/.test(s),
    });
    this.ajv.addSchema({ $id: "openapi", components: { schemas: doc.components.schemas } });
  }

  private validator(schema: JsonSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    let v = this.cache.get(key);
    if (!v) {
      const rebased = JSON.parse(key.replace(/"\$ref":"#\//g, '"$ref":"openapi#/')) as object;
      v = this.ajv.compile(rebased);
      this.cache.set(key, v);
    }
    return v;
  }

  private resolve(r: Response): Exclude<Response, { $ref: string }> {
    if ("$ref" in r) {
      const name = r.$ref.replace("#/components/responses/", "");
      const target = this.doc.components.responses[name];
      if (!target || "$ref" in target) throw new Error(`unresolvable response ${r.$ref}`);
      return target;
    }
    return r;
  }

  /** Problems with `answer` as the answer to `method template`; empty when it conforms. */
  check(method: Method, template: string, answer: Answer): string[] {
    const where = `${method.toUpperCase()} ${template} → ${answer.status}`;
    const op = this.doc.paths[template]?.[method];
    if (!op) return [`${where}: operation not in the document`];
    const documented = op.responses[String(answer.status)];
    if (!documented) return [`${where}: status not documented (${answer.text.slice(0, 200)})`];
    const r = this.resolve(documented);
    const out: string[] = [];
    for (const [name, h] of Object.entries(r.headers ?? {})) {
      // A header the document says may be absent (Idempotent-Replayed, only on a replay) is not required.
      const header = "$ref" in h ? this.doc.components.headers?.[h.$ref.replace("#/components/headers/", "")] : h;
      if (header && "required" in header && header.required === false) continue;
      if (!answer.headers.has(name)) out.push(`${where}: header ${name} missing`);
    }
    if (!r.content) {
      if (answer.text !== "") out.push(`${where}: body where none is documented`);
      return out;
    }
    const type = (answer.headers.get("content-type") ?? "").split(";")[0].trim();
    const media = r.content[type];
    if (!media) return [...out, `${where}: media type ${type} not documented`];
    const v = this.validator(media.schema);
    if (!v(answer.body)) out.push(`${where}: ${this.ajv.errorsText(v.errors)} in ${answer.text.slice(0, 300)}`);
    return out;
  }
}

/** The path item and template of every served path, with the resource's table. */
function resourcePaths(
  live: LiveService,
): { table: TableDescriptor; template: string; item: PathItem; isItem: boolean }[] {
  const out: { table: TableDescriptor; template: string; item: PathItem; isItem: boolean }[] = [];
  for (const table of live.service.tables) {
    const res = table.resource;
    if (!res) continue;
    for (const [template, isItem] of [
      [res.path, false],
      [`${res.path}/{id}`, true],
    ] as const) {
      const item = live.doc.paths[template];
      if (item) out.push({ table, template, item, isItem });
    }
  }
  return out;
}

/** A parameter's example as query-string pairs, per its style. */
function examplePairs(p: Parameter): [string, string][] | undefined {
  if (p.example === undefined) return undefined;
  if (Array.isArray(p.example)) {
    const items = p.example.map(String);
    return p.explode === false ? [[p.name, items.join(",")]] : items.map((v) => [p.name, v]);
  }
  return [[p.name, String(p.example)]];
}

function query(pairs: [string, string][]): string {
  const q = new URLSearchParams(pairs).toString();
  return q === "" ? "" : `?${q}`;
}

/** The listed operators of a filter parameter, read back from its description. */
export function listedOperators(p: Parameter, doc: OpenApiDocument): string[] {
  const m = /Operators: ([^\n]*)\./.exec(fullDescription(doc, p));
  return m ? [...m[1].matchAll(/`([a-z]+)`/g)].map((x) => x[1]) : [];
}

/** A filter value for `op`, from the example value of the column (`gte.1` → `1`). */
function operatorValue(op: string, sample: string | undefined): string | undefined {
  if (op === "isnull" || op === "notnull") return op;
  if (sample === undefined) return undefined;
  if (op === "between") return `between.${sample},${sample}`;
  return `${op}.${sample}`;
}

/** A key in the right form that names no row. */
function absentKey(schema: JsonSchema | undefined): string {
  if (schema?.type === "integer") return "2147480000";
  if (schema?.format === "uuid") return "ffffffff-ffff-4fff-bfff-ffffffffffff";
  return "no-such-row";
}

const ALL_OPERATORS = [...Object.keys(OPERATOR_VALUES), ...Object.keys(OPERATOR_ALIASES)];
const RESERVED = [
  "select",
  "sort",
  "search",
  "page",
  "per_page",
  "offset",
  "cursor",
  "count",
  "expand",
  "filter",
  "or",
  "and",
  "not",
];

/** Unknown-parameter refusals in a problem document. */
function unknownParameterProblems(a: Answer): string[] {
  const errors = (a.body as { errors?: { detail: string }[] } | undefined)?.errors ?? [];
  return errors.map((e) => e.detail).filter((d) => d.startsWith("unknown parameter"));
}

function isRouteNotFound(a: Answer): boolean {
  const body = a.body as { type?: string; detail?: string } | undefined;
  return a.status === 404 && body?.type === "/problems/not-found" && (body.detail ?? "").startsWith("No route matches");
}

/**
 * Registers the conformance tests of one service. `live()` is called in each
 * test, after the caller's `beforeAll` has set the service up.
 */
export function conformanceSuite(label: string, live: () => LiveService): void {
  describe(`${label}: the document against the running service`, () => {
    const request = async (
      checker: ResponseChecker,
      failures: string[],
      method: Method,
      template: string,
      url: string,
      body?: unknown,
    ): Promise<Answer> => {
      const a = await live().client.request(method.toUpperCase(), url, body);
      failures.push(...checker.check(method, template, a).map((f) => `${url}: ${f}`));
      return a;
    };

    it("serves every listed list parameter in its example form, and every allowed value of sort, select and expand", async () => {
      const l = live();
      const checker = new ResponseChecker(l.doc);
      const failures: string[] = [];
      let sent = 0;
      for (const { template, item, isItem } of resourcePaths(l)) {
        const op = item.get;
        if (isItem || !op) continue;
        for (const p of params(l.doc, op.parameters)) {
          const pairs = examplePairs(p);
          if (!pairs) {
            // Only the cursor has no example: a cursor comes from a page.
            // The cursor comes from a page; the groups are shared by every resource, so name no column (decision 1320).
            if (!["cursor", "or", "and", "not"].includes(p.name)) failures.push(`${template} ${p.name}: no example`);
            const a = await request(checker, failures, "get", template, `${template}?${p.name}=x`);
            if (unknownParameterProblems(a).length > 0) failures.push(`${template} ${p.name}: unknown parameter`);
            const first = await request(checker, failures, "get", template, `${template}?per_page=1`);
            const next = (first.body as { next_cursor?: string }).next_cursor;
            if (p.name === "cursor" && next !== undefined) {
              const b = await request(
                checker,
                failures,
                "get",
                template,
                template +
                  query([
                    ["per_page", "1"],
                    ["cursor", next],
                  ]),
              );
              sent++;
              if (b.status !== 200) failures.push(`${template}?cursor=…: ${b.status} ${b.text.slice(0, 300)}`);
            }
            continue;
          }
          const a = await request(checker, failures, "get", template, template + query(pairs));
          sent++;
          if (a.status !== 200) failures.push(`${template}${query(pairs)}: ${a.status} ${a.text.slice(0, 300)}`);
          const values = p.schema?.items?.examples;
          if (values) {
            for (const v of values) {
              const b = await request(checker, failures, "get", template, template + query([[p.name, String(v)]]));
              sent++;
              if (b.status !== 200) failures.push(`${template}?${p.name}=${v}: ${b.status} ${b.text.slice(0, 300)}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
      expect(sent).toBeGreaterThan(10);
    });

    it("accepts every operator a filter parameter lists, and refuses every other", async () => {
      const l = live();
      const checker = new ResponseChecker(l.doc);
      const failures: string[] = [];
      let accepted = 0;
      for (const { template, item, isItem } of resourcePaths(l)) {
        if (isItem || !item.get) continue;
        const filters = params(l.doc, item.get.parameters).filter(
          (p) => p.description?.startsWith("Filter on") || /\n\nFilter on/.test(p.description ?? ""),
        );
        for (const p of filters) {
          const ops = listedOperators(p, l.doc);
          if (ops.length === 0) failures.push(`${template} ${p.name}: no operators listed`);
          const example = Array.isArray(p.example) ? String(p.example[0]) : undefined;
          const dot = example?.indexOf(".") ?? -1;
          const sample = example !== undefined && dot > 0 ? example.slice(dot + 1) : undefined;
          for (const op of ALL_OPERATORS) {
            const text = operatorValue(op, sample ?? "1");
            if (text === undefined) continue;
            const listed = ops.includes(op);
            if (listed && sample === undefined && op !== "isnull" && op !== "notnull") continue;
            const a = await request(checker, failures, "get", template, template + query([[p.name, text]]));
            if (listed && a.status !== 200)
              failures.push(`${template}?${p.name}=${text}: ${a.status} ${a.text.slice(0, 300)}`);
            if (listed) accepted++;
            if (!listed && a.status !== 400)
              failures.push(`${template}?${p.name}=${text}: unlisted operator answered ${a.status}`);
          }
        }
      }
      expect(failures).toEqual([]);
      expect(accepted).toBeGreaterThan(20);
    });

    it("serves reads with each listed parameter, and routes every listed write", async () => {
      const l = live();
      const checker = new ResponseChecker(l.doc);
      const failures: string[] = [];
      for (const { table, template, item, isItem } of resourcePaths(l)) {
        if (!isItem) {
          if (item.post) {
            const a = await request(checker, failures, "post", template, template, {});
            if (a.status !== 400 && a.status !== 201) failures.push(`POST ${template} {}: ${a.status}`);
            if (isRouteNotFound(a)) failures.push(`POST ${template}: no route`);
          }
          continue;
        }
        const collection = template.replace(/\/\{id\}$/, "");
        const keyParam = item.parameters?.find((p) => p.name === "id");
        const absent = `${collection}/${absentKey(keyParam?.schema)}`;
        // A real key, from the list when there is one.
        let key: string | undefined;
        if (l.doc.paths[collection]?.get) {
          const page = await l.client.get(`${collection}?per_page=1`);
          const row = (page.body as { items?: Record<string, unknown>[] }).items?.[0];
          if (row) key = String(row[table.primaryKey[0]]);
        }
        if (item.get) {
          if (key === undefined) failures.push(`${template}: no row to read`);
          else {
            const url = `${collection}/${encodeURIComponent(key)}`;
            const a = await request(checker, failures, "get", template, url);
            if (a.status !== 200) failures.push(`GET ${url}: ${a.status}`);
            for (const p of params(l.doc, item.get.parameters)) {
              for (const v of p.schema?.items?.examples ?? []) {
                const b = await request(checker, failures, "get", template, url + query([[p.name, String(v)]]));
                if (b.status !== 200) failures.push(`GET ${url}?${p.name}=${v}: ${b.status} ${b.text.slice(0, 300)}`);
              }
            }
          }
          const missing = await request(checker, failures, "get", template, absent);
          if (missing.status !== 404 || isRouteNotFound(missing)) failures.push(`GET ${absent}: ${missing.status}`);
        }
        if (item.patch) {
          const target = key === undefined ? absent : `${collection}/${encodeURIComponent(key)}`;
          const a = await request(checker, failures, "patch", template, target, {});
          if (a.status !== 400) failures.push(`PATCH ${target} {}: ${a.status} (the empty change set is a 400)`);
        }
        if (item.delete) {
          const a = await request(checker, failures, "delete", template, absent);
          if (a.status !== 404 || isRouteNotFound(a)) failures.push(`DELETE ${absent}: ${a.status}`);
        }
      }
      expect(failures).toEqual([]);
    });

    it("serves no method and no path it does not list", async () => {
      const l = live();
      const failures: string[] = [];
      let probed = 0;
      for (const table of l.service.tables) {
        const base = table.resource?.path ?? `/${table.name}`;
        for (const [template, url] of [
          [base, base],
          [`${base}/{id}`, `${base}/1`],
        ]) {
          const item = l.doc.paths[template];
          for (const method of [...METHODS, "put"]) {
            if (item && (item as Record<string, Operation | undefined>)[method]) continue;
            const a = await l.client.request(
              method.toUpperCase(),
              url,
              method === "get" || method === "delete" ? undefined : {},
            );
            probed++;
            if (!isRouteNotFound(a)) failures.push(`${method.toUpperCase()} ${url}: ${a.status}, not the app's 404`);
          }
        }
      }
      expect(failures).toEqual([]);
      expect(probed).toBeGreaterThan(5);
    });

    it("refuses every query parameter it does not list", async () => {
      const l = live();
      const checker = new ResponseChecker(l.doc);
      const failures: string[] = [];
      for (const { table, template, item, isItem } of resourcePaths(l)) {
        const op = item.get;
        if (!op) continue;
        let url = template;
        if (isItem) {
          const collection = template.replace(/\/\{id\}$/, "");
          const page = l.doc.paths[collection]?.get ? await l.client.get(`${collection}?per_page=1`) : undefined;
          const row = (page?.body as { items?: Record<string, unknown>[] } | undefined)?.items?.[0];
          url = `${collection}/${row ? encodeURIComponent(String(row[table.primaryKey[0]])) : "1"}`;
        }
        const listed = new Set(params(l.doc, op.parameters).map((p) => p.name));
        const candidates = [...new Set([...table.columns.map((c) => c.name), ...RESERVED, "bogus"])].filter(
          (n) => !listed.has(n),
        );
        for (const name of candidates) {
          const value =
            name === "filter"
              ? '{"field":"x","op":"eq","value":"1"}'
              : name === "or" || name === "and" || name === "not"
                ? "(x.eq.1)"
                : "1";
          const a = await request(checker, failures, "get", template, url + query([[name, value]]));
          if (a.status !== 400) failures.push(`GET ${url}?${name}=${value}: ${a.status}, expected 400`);
        }
      }
      expect(failures).toEqual([]);
    });
  });
}
