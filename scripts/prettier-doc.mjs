// Prints the document prettier builds for a TypeScript snippet before it lays it out
// (`node scripts/prettier-doc.mjs 'export type A<S = undefined> = B<S>;'`): the
// reference for the documents the client backend builds for compiler/backends/doc-printer.ts
// (docs/decisions/1327-laid-out-client-methods.md). Uses prettier's debugging entry points.
import * as prettier from "prettier";

const source = process.argv[2];
if (!source) {
  process.stderr.write("usage: node scripts/prettier-doc.mjs '<TypeScript>'\n");
  process.exit(2);
}
const doc = await prettier.__debug.printToDoc(source, { parser: "typescript" });
process.stdout.write(`${await prettier.__debug.formatDoc(doc, {})}\n`);
