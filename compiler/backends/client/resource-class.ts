/**
 * One served table's part of the typed client's `index.ts` (its path and
 * codecs constants, its item type, its resource class), laid out in
 * prettier's final form by the document printer: a method's signature,
 * its call and its type arguments break where prettier breaks them, which
 * depends on the width of the table's names (bench/COMPILER.md;
 * docs/decisions/1327-laid-out-client-methods.md).
 */
import type { ActionDescriptor, TableDescriptor } from "../../../runtime/descriptor.js";
import { conflictKeys, vocabulary } from "../../../runtime/query/vocabulary.js";
import {
  group,
  hardline,
  ifBreak,
  indent,
  indentIfBreak,
  join,
  line,
  printDoc,
  softline,
  type Doc,
} from "../doc-printer.js";
import { codeFits, type ModulePiece } from "../final-form.js";
import { call, list, object, stringProperty, typeParam, typeRef } from "../ts-docs.js";
import { constantCase, docComment, propertyKey } from "./names.js";
import { clientTypeNames } from "./types.js";
import { filterCodec, takesDate } from "./value-types.js";
import { actionMethodName, actionRoute, actionTypeNames } from "../../actions.js";

/**
 * The keys the client's `upsert` may name: the runtime's `conflictKeys`, or none
 * when the resource creates nothing (docs/decisions/1332-upsert.md).
 */
export function upsertKeys(table: TableDescriptor): string[][] {
  return table.resource?.ops.create ? conflictKeys(table) : [];
}

/** Whether the client has `updateWhere`/`deleteWhere` for the table: filtered writes over a list's `where` (decision 1333). */
export function hasFilteredWrites(table: TableDescriptor): boolean {
  const r = table.resource;
  return r?.filteredWrites === true && r.ops.list && vocabulary(table).filterable.length > 0;
}

/** `this.client`, whose member access prettier may break onto its own line. */
const THIS_CLIENT: Doc = ["this", group(indent([softline, ".client"]))];

/** A method: type parameters, parameters with the return type, and a body of statements. */
function method(
  head: string,
  typeParams: readonly Doc[],
  params: readonly Doc[],
  returns: Doc,
  body: readonly Doc[],
): Doc {
  return [
    head,
    typeParams.length > 0 ? list("<", typeParams, ">", true) : "",
    group(["(", indent([softline, join([",", line], params)]), ifBreak(","), softline, ")", ": ", returns]),
    " {",
    indent([hardline, join(hardline, body)]),
    hardline,
    "}",
  ];
}

/** `const expand` of a read with `expand`: its layout depends on nothing the schema names. */
const EXPAND_STATEMENT: Doc = [
  "const expand: [string, string][] =",
  indent([
    hardline,
    "query.expand && query.expand.length > 0",
    indent([hardline, '? [["expand", query.expand.join(",")]]', hardline, ": [];"]),
  ]),
];

/** The columns a create or update body of `table` takes a `Date` for (their codec tells `writeBody` the wire form). */
function bodyDateColumns(table: TableDescriptor): string[] {
  const vocab = vocabulary(table);
  const writable = new Set([...vocab.createWritable, ...vocab.updateWritable]);
  return table.columns.filter((c) => writable.has(c.name) && takesDate(c)).map((c) => c.name);
}

/**
 * `const <T>_CODECS: ColumnCodecs = {…};`, laid out "fluid": the object moves to the next line only when its
 * opening brace would not fit. The filterable columns' codecs, then those of body columns taking a `Date`.
 */
function codecsConstant(table: TableDescriptor, stem: string): Doc {
  const filterable = vocabulary(table).filterable;
  const names = [...filterable, ...bodyDateColumns(table).filter((n) => !filterable.includes(n))];
  const entries = names
    .map((n) => table.columns.find((c) => c.name === n))
    .flatMap((c) => {
      const codec = c ? filterCodec(c) : undefined;
      return c && codec ? [stringProperty(propertyKey(c.name), JSON.stringify(codec))] : [];
    });
  const id = Symbol("assignment");
  const value = entries.length === 0 ? "{}" : object(entries);
  return [
    "const ",
    group([`${stem}_CODECS: ColumnCodecs`, " =", group(indent(line), id), indentIfBreak(value, id)]),
    ";",
  ];
}

/** `const <T>_PATH = "…";`: a string prettier moves to the next line when it does not fit (break-after-operator). */
function pathConstant(path: string, stem: string): Doc {
  return ["const ", group([`${stem}_PATH`, " =", group(indent([line, JSON.stringify(path)]))]), ";"];
}

/** `export type <T>Item<…> = …;` laid out as prettier lays out a type alias (break-lhs with two parameters, fluid with one). */
function itemAlias(table: TableDescriptor, expandable: boolean): Doc {
  const n = clientTypeNames(table);
  const selected = typeRef("Selected", [n.row, "S", n.key]);
  if (expandable) {
    const right = group([selected, indent([" &", line, typeRef("Expanded", [n.expansions, "E"])])]);
    const params = list(
      "<",
      [typeParam("S", undefined, "undefined"), typeParam("E", undefined, "undefined")],
      ">",
      true,
    );
    return ["export ", group(["type ", n.item, params, " =", " ", right]), ";"];
  }
  const id = Symbol("assignment");
  return [
    "export ",
    group([
      group(["type ", n.item, list("<", [typeParam("S", undefined, "undefined")], ">", true)]),
      " =",
      group(indent(line), id),
      indentIfBreak(selected, id),
    ]),
    ";",
  ];
}

/** The methods of a resource class, one per exposed operation (spec: guarantee 4). */
function methods(table: TableDescriptor, stem: string): { doc: string; code: Doc }[] {
  const resource = table.resource;
  if (!resource) return [];
  const n = clientTypeNames(table);
  const expandable = table.relations.some((r) => r.expandable);
  // Read, update and delete take the whole key: one value, or an object of every key column (decision 1376).
  const key = table.primaryKey.length > 0;
  const PATH = `${stem}_PATH`;
  const CODECS = `${stem}_CODECS`;
  const eParam = typeParam("const E", [`readonly ${n.relation}[]`, "undefined"], "undefined");
  const typeParams = [typeParam("const S", [`readonly ${n.column}[]`, "undefined"], "undefined")];
  if (expandable) typeParams.push(eParam);
  const sel = expandable ? ["S", "E"] : ["S"];
  const item = typeRef(n.item, sel);
  const listQuery = ["query: ", typeRef(n.listQuery, sel), " = {}"];
  const page = typeRef("ListPage", [item]);
  const out: { doc: string; code: Doc }[] = [];
  const itemPath = itemPathDoc(table, PATH);
  // Bodies with a column taking a `Date` are written through the core's writeBody (its wire form per column).
  const dated = bodyDateColumns(table).length > 0;
  const wire = (value: string): Doc =>
    dated ? ["body: ", call("writeBody", [], [value, CODECS])] : value === "body" ? "body" : `body: ${value}`;
  const json = (type: Doc, request: readonly Doc[]): Doc => [
    "return ",
    call("requestJson", [type], [THIS_CLIENT, object(request), "options"]),
    ";",
  ];
  if (resource.ops.list) {
    const fetchArgs = [THIS_CLIENT, PATH, CODECS, "query", "options"];
    out.push(
      {
        doc: `GET ${resource.path}: one page. \`select\` narrows the rows, \`expand\` adds relations.\n@throws ProblemError when the service refuses the query (400 lists what is allowed)`,
        code: method("list", typeParams, [listQuery, "options?: CallOptions"], typeRef("Promise", [page]), [
          ["return ", call("fetchPage", [item], fetchArgs), ";"],
        ]),
      },
      {
        doc: `GET ${resource.path}, page after page: follows \`next_cursor\` until the last page.`,
        code: method(
          "pages",
          typeParams,
          [listQuery, "options?: CallOptions"],
          typeRef("AsyncGenerator", [page, "void", "undefined"]),
          [["return ", call("walkPages", [item], fetchArgs), ";"]],
        ),
      },
    );
  }
  if (resource.ops.list && resource.events) {
    // docs/decisions/1337-change-feed.md: a list's filters over time.
    const changed = typeRef("ChangeEvent", [
      typeRef(n.item, expandable ? ["S", "undefined"] : ["S"]),
      `Pick<${n.row}, ${n.key}>`,
    ]);
    out.push({
      doc: `GET ${resource.path}/events: each change of the rows \`query\` selects, as it commits (creates, updates, deletes, and \`leave\` when a row no longer matches); reconnects and resumes by itself, backing off after a failure (a 5xx, no connection), each told to \`options.onError\`. Pass the last \`id\` seen as \`options.lastEventId\` to resume later.\n@throws ProblemError when the service refuses the request (a 4xx: 400 lists what is allowed), or ends the stream because it cannot judge the filters on a change (422 \`/problems/subscription-failed\`)`,
      code: method(
        "events",
        [typeParams[0]!],
        [["query: ", typeRef(n.eventsQuery, ["S"]), " = {}"], "options?: EventsOptions"],
        typeRef("AsyncGenerator", [changed, "void", "undefined"]),
        [
          [
            "return ",
            call(
              "followEvents",
              [typeRef(n.item, expandable ? ["S", "undefined"] : ["S"]), `Pick<${n.row}, ${n.key}>`],
              [THIS_CLIENT, PATH, CODECS, "query", "options"],
            ),
            ";",
          ],
        ],
      ),
    });
  }
  const readDoc = `GET ${resource.path}${itemSuffix(table)}: one row.\n@throws ProblemError 404 when there is no such row`;
  if (resource.ops.read && key && expandable) {
    const read = typeRef(n.item, ["undefined", "E"]);
    out.push({
      doc: readDoc,
      code: method(
        "get",
        [eParam],
        [`id: ${n.id}`, ["query: ", typeRef(n.readQuery, ["E"]), " = {}"], "options?: CallOptions"],
        typeRef("Promise", [read]),
        [EXPAND_STATEMENT, json(read, [stringProperty("method", '"GET"'), ["path: ", itemPath], "query: expand"])],
      ),
    });
  } else if (resource.ops.read && key) {
    out.push({
      doc: readDoc,
      code: method("get", [], [`id: ${n.id}`, "options?: CallOptions"], typeRef("Promise", [n.row]), [
        json(n.row, [stringProperty("method", '"GET"'), ["path: ", itemPath]]),
      ]),
    });
  }
  if (resource.ops.create) {
    out.push({
      doc: `POST ${resource.path}: creates a row and returns it as stored.\n@throws ProblemError 400 (body refused), 409 (duplicate), 422 (constraint)`,
      code: method("create", [], [`body: ${n.create}`, "options?: CallOptions"], typeRef("Promise", [n.row]), [
        json(n.row, [stringProperty("method", '"POST"'), `path: ${PATH}`, wire("body")]),
      ]),
    });
    // docs/decisions/1330-bulk-create.md: one transaction, every row or none.
    out.push({
      doc: `POST ${resource.path} with an array: creates every row (at most ${resource.limits.maxBatch}) in one transaction, or none, and returns them as stored, in order.\n@throws ProblemError 400 (a row refused; the location names it, as \`body[3].title\`), 409, 422`,
      code: method(
        "createMany",
        [],
        [`rows: readonly ${n.create}[]`, "options?: CallOptions"],
        typeRef("Promise", [`${n.row}[]`]),
        [json(`${n.row}[]`, [stringProperty("method", '"POST"'), `path: ${PATH}`, wire("rows")])],
      ),
    });
    // docs/decisions/1332-upsert.md: only where a key the resource shows can name the conflict.
    const keys = upsertKeys(table);
    if (keys.length > 0)
      out.push({
        doc: `POST ${resource.path} as an upsert: stores each row or, on a row conflicting on \`how.onConflict\` (${keys.map((k) => k.join(", ")).join("; or ")}; default the primary key), overwrites the columns an update may write (\`resolution: "merge"\`) or keeps it (\`"ignore"\`). Returns the rows stored or merged, in order.\n@throws ProblemError 400 (a row refused, or not a key), 409 (a conflicting row out of reach), 422`,
        code: method(
          "upsert",
          [],
          [`rows: readonly ${n.create}[]`, typeRef("how: Upsert", [n.column]), "options?: CallOptions"],
          typeRef("Promise", [`${n.row}[]`]),
          [
            json(`${n.row}[]`, [
              stringProperty("method", '"POST"'),
              `path: ${PATH}`,
              wire("rows"),
              "...upsertRequest(how)",
            ]),
          ],
        ),
      });
  }
  if (resource.ops.update && key) {
    out.push({
      doc: `PATCH ${resource.path}${itemSuffix(table)}: changes the fields given and returns the written row; with \`options.ifMatch\` (an \`etagOf\` tag) only if the row is still at that version.\n@throws ProblemError 400 (empty or refused change), 404, 409, 412 (changed since), 422`,
      code: method(
        "update",
        [],
        [`id: ${n.id}`, `body: ${n.update}`, "options?: CallOptions"],
        typeRef("Promise", [n.row]),
        [json(n.row, [stringProperty("method", '"PATCH"'), ["path: ", itemPath], wire("body")])],
      ),
    });
  }
  // docs/decisions/1333-filtered-writes.md: the filter is a list's `where`.
  const filtered = hasFilteredWrites(table);
  const filterArgs = `...filteredRequest(where, ${CODECS}, options)`;
  if (filtered && resource.ops.update)
    out.push({
      doc: `PATCH ${resource.path} with a filter: sets the fields given on every row \`where\` matches, in one transaction; \`options.maxAffected\` refuses more.\n@throws ProblemError 400 (refused filter or body, or more than maxAffected rows), 409, 422`,
      code: method(
        "updateWhere",
        [],
        [`where: ${n.where}`, `body: ${n.update}`, "options?: FilteredWriteOptions"],
        typeRef("Promise", [`${n.row}[]`]),
        [json(`${n.row}[]`, [stringProperty("method", '"PATCH"'), `path: ${PATH}`, wire("body"), filterArgs])],
      ),
    });
  if (filtered && resource.ops.delete) {
    const keys = `Pick<${n.row}, ${n.key}>[]`;
    out.push({
      doc: `DELETE ${resource.path} with a filter: removes every row \`where\` matches, in one transaction, and returns their keys; \`options.maxAffected\` refuses more.\n@throws ProblemError 400 (refused filter, or more than maxAffected rows), 409 (still referenced)`,
      code: method(
        "deleteWhere",
        [],
        [`where: ${n.where}`, "options?: FilteredWriteOptions"],
        typeRef("Promise", [keys]),
        [json(keys, [stringProperty("method", '"DELETE"'), `path: ${PATH}`, filterArgs])],
      ),
    });
  }
  for (const action of resource.actions ?? []) out.push(actionMethod(table, action, stem));
  if (resource.ops.delete && key) {
    out.push({
      doc: `DELETE ${resource.path}${itemSuffix(table)}: deletes the row; with \`options.ifMatch\` only if it is still at that version.\n@throws ProblemError 404 when there is no such row, 412 when it changed since`,
      code: method("async delete", [], [`id: ${n.id}`, "options?: CallOptions"], typeRef("Promise", ["void"]), [
        [
          "await ",
          group(
            call(
              "this.client.do",
              [],
              [object([stringProperty("method", '"DELETE"'), ["path: ", itemPath]]), "options"],
            ),
          ),
          ";",
        ],
      ]),
    });
  }
  return out;
}

/**
 * The method of a declared action (docs/decisions/1334-declared-actions.md):
 * `return(id, input, options)` for an item action, `name(input, options)`
 * for a collection action; the input parameter is left out when the action
 * declares no field, and defaults to `{}` when every field may be left out.
 */
function actionMethod(table: TableDescriptor, action: ActionDescriptor, stem: string): { doc: string; code: Doc } {
  const n = clientTypeNames(table);
  const types = actionTypeNames(table.name, action.name);
  const item = action.target === "item";
  const route = actionRoute(table.resource?.path ?? "", action);
  const params: Doc[] = item ? [`id: ${n.id}`] : [];
  if (action.input.length > 0)
    params.push(`input: ${types.input}${action.input.every((f) => f.nullable) ? " = {}" : ""}`);
  params.push("options?: CallOptions");
  const path: Doc = item
    ? [call("itemPath", [], [`${stem}_PATH`, "id"]), ` + ${JSON.stringify(`/${action.name}`)}`]
    : `${stem}_PATH + ${JSON.stringify(`/${action.name}`)}`;
  const request = object([
    stringProperty("method", '"POST"'),
    ["path: ", path],
    action.input.length > 0 ? "body: input" : "body: {}",
  ]);
  const lead =
    action.doc === undefined
      ? ""
      : `${action.doc}

`;
  const returns = action.output ? types.output : item ? n.row : undefined;
  const ifMatch = item ? "; with `options.ifMatch` only while the row is at that version" : "";
  const answer = action.output
    ? "returns its output"
    : item
      ? "returns the row as it is after the action"
      : "resolves when it is done";
  const doc = `${lead}POST ${route}: ${answer}${ifMatch}.
@throws ProblemError 400 (input refused)${item ? ", 404, 412 (changed since)" : ""}, 409 or 422 (the action refused)`;
  const name = actionMethodName(action.name);
  if (returns === undefined)
    return {
      doc,
      code: method(`async ${name}`, [], params, typeRef("Promise", ["void"]), [
        ["await ", group(call("this.client.do", [], [request, "options"])), ";"],
      ]),
    };
  return {
    doc,
    code: method(name, [], params, typeRef("Promise", [returns]), [
      ["return ", call("requestJson", [returns], [THIS_CLIENT, request, "options"]), ";"],
    ]),
  };
}

/**
 * The pieces of `index.ts` for one served table (spec: Typed client), in
 * final form: its constants, then its item type and class; none for a
 * table without a resource. Should a line of code in the item type or the
 * class run past the print width ({@link codeFits}), those two statements
 * go to the formatter instead.
 */
export function resourcePieces(table: TableDescriptor): ModulePiece[] {
  const resource = table.resource;
  if (!resource) return [];
  const n = clientTypeNames(table);
  const stem = constantCase(table.name);
  const expandable = table.relations.some((r) => r.expandable);
  const constants = `${printDoc(pathConstant(resource.path, stem))}\n\n${printDoc(codecsConstant(table, stem))}`;
  const itemDoc = docComment(
    `A row of \`${resource.path}\` as returned for a given \`select\`${expandable ? " and `expand`" : ""}.`,
  );
  const doc = resource.doc ?? table.doc;
  const classDoc = docComment(`${doc ? `${doc}\n\n` : ""}The operations of \`${resource.path}\`.`);
  const members = methods(table, stem).map((m) => `${docComment(m.doc, "  ")}  ${printDoc(m.code, 2)}`);
  const alias = printDoc(itemAlias(table, expandable));
  const laidOut =
    `${itemDoc}${alias}\n\n` +
    `${classDoc}export class ${n.resource} {\n  private readonly client: HttpClient;\n\n` +
    `  constructor(client: HttpClient) {\n    this.client = client;\n  }\n\n${members.join("\n\n")}\n}`;
  return [
    { text: constants, form: "final" },
    { text: laidOut, form: codeFits(laidOut) ? "final" : "format" },
  ];
}

/**
 * The expression of an item's path: `itemPath(PATH, id)` for a single key;
 * for a composite key one `itemPath` per key column in key order, each
 * value percent-encoded as its own segment (`/film-actors/1/2`;
 * docs/decisions/1376-composite-key-address.md).
 */
function itemPathDoc(table: TableDescriptor, PATH: string): Doc {
  if (table.primaryKey.length <= 1) return call("itemPath", [], [PATH, "id"]);
  let path: Doc = PATH;
  for (const k of table.primaryKey) {
    const value = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? `id.${k}` : `id[${JSON.stringify(k)}]`;
    path = call("itemPath", [], [path, value]);
  }
  return path;
}

/** The item path's segments as its documentation spells them: `/{id}`, or `/{film_id}/{actor_id}`. */
function itemSuffix(table: TableDescriptor): string {
  return table.primaryKey.length <= 1 ? "/{id}" : table.primaryKey.map((k) => `/{${k}}`).join("");
}
