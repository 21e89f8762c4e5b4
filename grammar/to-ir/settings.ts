/**
 * The `api { … }` and `generate { … }` blocks (docs/language.md; spec:
 * Versioning, Authentication, Generator configuration). Both are plain
 * string settings; security schemes live in `api`.
 */
import type { CstNode, IToken } from "chevrotain";
import type { ApiDecl, GenerateDecl, SecuritySchemeDecl, Span } from "../../language/ir.js";
import { nameToken, node, nodes, token } from "./cst.js";
import type { Ctx } from "./context.js";
import { expectString } from "./expect.js";
import { readValue } from "./values.js";
import { didYouMean } from "../../language/suggest.js";

/**
 * Reads `setting` nodes whose values must all be strings, calling
 * `assign(key, value)` for each known key. Unknown keys (`unknown-setting`)
 * and repeated keys (`duplicate-setting`) are reported.
 */
function readStringSettings(
  settings: CstNode[],
  known: readonly string[],
  block: string,
  ctx: Ctx,
  assign: (key: string, value: string) => void,
): void {
  const seen = new Map<string, Span>();
  for (const s of settings) {
    const key = token(s, "key");
    if (!key) continue;
    if (!known.includes(key.image)) {
      const hint = didYouMean(key.image, known);
      ctx.error(
        "unknown-setting",
        hint
          ? `Unknown setting "${key.image}" in ${block}.${hint}`
          : `Unknown setting "${key.image}" in ${block}: expected one of ${known.join(", ")}`,
        ctx.tok(key),
      );
      continue;
    }
    const first = seen.get(key.image);
    if (first) {
      ctx.error("duplicate-setting", `Setting "${key.image}" is already given at line ${first.line}`, ctx.tok(key));
      continue;
    }
    seen.set(key.image, ctx.tok(key));
    const v = expectString(readValue(node(s, "value"), ctx), { what: `"${key.image}"`, code: "invalid-value" }, ctx);
    if (v !== undefined) assign(key.image, v);
  }
}

/** Generator settings and the `GenerateDecl` field each fills. */
const GENERATE_KEYS: Record<string, keyof Omit<GenerateDecl, "span">> = {
  dir: "dir",
  package: "package",
  cli_dir: "cliDir",
  cli_name: "cliName",
  client_dir: "clientDir",
};

/** Builds the `generate` block. */
export function readGenerate(n: CstNode, ctx: Ctx): GenerateDecl {
  const g: GenerateDecl = { span: ctx.nodeSpan(n) };
  readStringSettings(
    nodes(node(n, "settingsBlock"), "setting"),
    Object.keys(GENERATE_KEYS),
    "generate",
    ctx,
    (k, v) => {
      g[GENERATE_KEYS[k]!] = v;
    },
  );
  return g;
}

function readScheme(n: CstNode, ctx: Ctx): SecuritySchemeDecl | undefined {
  const name = nameToken(node(n, "name"));
  if (!name) return undefined;
  const scheme: SecuritySchemeDecl = { name: name.image, type: "http", scheme: "", span: ctx.nodeSpan(n) };
  const settings = nodes(node(n, "settingsBlock"), "setting");
  readStringSettings(settings, ["scheme", "bearer_format"], `security scheme "${name.image}"`, ctx, (k, v) => {
    if (k === "scheme") scheme.scheme = v;
    else scheme.bearerFormat = v;
  });
  // A `scheme` with a malformed value was reported already; only its absence is new.
  if (settings.every((s) => token(s, "key")?.image !== "scheme")) {
    ctx.error(
      "missing-setting",
      `Security scheme "${name.image}" needs an HTTP scheme: scheme = "bearer"`,
      ctx.tok(name),
    );
  }
  return scheme;
}

/** Builds the `api` block: title, version, licence and security schemes (a scheme name given twice is `duplicate-security-scheme`). */
export function readApi(n: CstNode, ctx: Ctx, keyword: IToken | undefined): ApiDecl {
  const api: ApiDecl = { securitySchemes: [], span: ctx.nodeSpan(n) };
  const doc = ctx.docs.docFor(keyword);
  if (doc !== undefined) api.doc = doc;
  readStringSettings(nodes(n, "setting"), ["title", "version", "license"], "api", ctx, (k, v) => {
    if (k === "title") api.title = v;
    else if (k === "license") api.license = v;
    else api.version = v;
  });
  for (const s of nodes(n, "securityScheme")) {
    const scheme = readScheme(s, ctx);
    if (!scheme) continue;
    const first = api.securitySchemes.find((x) => x.name === scheme.name);
    if (first) {
      ctx.error(
        "duplicate-security-scheme",
        `Security scheme "${scheme.name}" is already declared at line ${first.span.line}`,
        ctx.tok(nameToken(node(s, "name"))!),
      );
      continue;
    }
    api.securitySchemes.push(scheme);
  }
  return api;
}
