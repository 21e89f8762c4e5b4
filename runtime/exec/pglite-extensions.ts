/**
 * The PostgreSQL extensions every embedded database resc opens can
 * `CREATE EXTENSION`: the ones schemas commonly need (a `citext` column,
 * `uuid_generate_v4()` or `gen_random_bytes()` in a default, trigram and
 * GIN/GiST operator classes in an index, `hstore`). A real server ships
 * them as contrib modules; PGlite keeps each one in a package of its own,
 * registered when the instance starts and unpacked only by a
 * `CREATE EXTENSION` that names it, so registering them costs a start
 * next to nothing (docs/decisions/1250-sequences.md, "Scratch and
 * embedded databases").
 */
import type { Extensions } from "@electric-sql/pglite";

/**
 * The extensions to pass as `new PGlite({ extensions })`, keyed by the
 * name `CREATE EXTENSION` uses (`uuid-ossp` has a dash there): every
 * contrib module PGlite ships that a schema or an adopted database may
 * have installed, so a baseline migration that recreates an adopted
 * database's extensions replays in a scratch database
 * (docs/decisions/1258-extensions-and-functions.md).
 */
export async function pgliteExtensions(): Promise<Extensions> {
  const m = await Promise.all([
    import("@electric-sql/pglite/contrib/citext").then((x) => ["citext", x.citext] as const),
    import("@electric-sql/pglite/contrib/hstore").then((x) => ["hstore", x.hstore] as const),
    import("@electric-sql/pglite/contrib/pg_trgm").then((x) => ["pg_trgm", x.pg_trgm] as const),
    import("@electric-sql/pglite/contrib/btree_gin").then((x) => ["btree_gin", x.btree_gin] as const),
    import("@electric-sql/pglite/contrib/btree_gist").then((x) => ["btree_gist", x.btree_gist] as const),
    import("@electric-sql/pglite/contrib/uuid_ossp").then((x) => ["uuid-ossp", x.uuid_ossp] as const),
    import("@electric-sql/pglite/contrib/pgcrypto").then((x) => ["pgcrypto", x.pgcrypto] as const),
    import("@electric-sql/pglite/contrib/unaccent").then((x) => ["unaccent", x.unaccent] as const),
    import("@electric-sql/pglite/contrib/fuzzystrmatch").then((x) => ["fuzzystrmatch", x.fuzzystrmatch] as const),
    import("@electric-sql/pglite/contrib/ltree").then((x) => ["ltree", x.ltree] as const),
    import("@electric-sql/pglite/contrib/tablefunc").then((x) => ["tablefunc", x.tablefunc] as const),
    import("@electric-sql/pglite/contrib/intarray").then((x) => ["intarray", x.intarray] as const),
    import("@electric-sql/pglite/contrib/isn").then((x) => ["isn", x.isn] as const),
    import("@electric-sql/pglite/contrib/cube").then((x) => ["cube", x.cube] as const),
    import("@electric-sql/pglite/contrib/earthdistance").then((x) => ["earthdistance", x.earthdistance] as const),
    import("@electric-sql/pglite/contrib/seg").then((x) => ["seg", x.seg] as const),
    import("@electric-sql/pglite/contrib/lo").then((x) => ["lo", x.lo] as const),
    import("@electric-sql/pglite/contrib/tcn").then((x) => ["tcn", x.tcn] as const),
    import("@electric-sql/pglite/contrib/tsm_system_rows").then((x) => ["tsm_system_rows", x.tsm_system_rows] as const),
    import("@electric-sql/pglite/contrib/tsm_system_time").then((x) => ["tsm_system_time", x.tsm_system_time] as const),
    import("@electric-sql/pglite/contrib/dict_int").then((x) => ["dict_int", x.dict_int] as const),
    import("@electric-sql/pglite/contrib/dict_xsyn").then((x) => ["dict_xsyn", x.dict_xsyn] as const),
    import("@electric-sql/pglite/contrib/bloom").then((x) => ["bloom", x.bloom] as const),
  ]);
  return Object.fromEntries(m);
}
