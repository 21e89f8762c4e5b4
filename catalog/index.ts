/**
 * The catalog room's front door (docs/decisions/1375-catalog-room.md): one model of a database schema as
 * PostgreSQL spells it (`model.ts`), one reader of a live database into it (`read.ts`, with `introspect.ts` for
 * what `resc pull` reports beside it), one projection of a compiled schema into it (`project/`: its DDL applied
 * to a scratch database and read back by the same reader), one differ (`diff.ts`, with `compare.ts` and
 * `expressible.ts` choosing what a comparison tolerates), and the renderers: migration steps (`diff.ts`'s SQL),
 * `.resource` text (`render/resource.ts`) and the live schema check's sentences (`render/mismatches.ts`).
 * `cli/` imports this module only; `runtime/` never imports the room.
 */
export * from "./model.js";
export * from "./read.js";
export * from "./introspect.js";
export * from "./diff.js";
export * from "./compare.js";
export * from "./expressible.js";
export * from "./naming.js";
export * from "./project/prelude.js";
export * from "./project/scratch.js";
export * from "./project/declared.js";
export * from "./project/scratch-database.js";
export * from "./project/pglite-fresh.js";
export * from "./render/resource.js";
export * from "./render/policies.js";
export * from "./render/secrets.js";
export * from "./render/mismatches.js";
