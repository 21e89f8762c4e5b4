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
 * name `CREATE EXTENSION` uses (`uuid-ossp` has a dash there).
 */
export async function pgliteExtensions(): Promise<Extensions> {
  const [citext, hstore, pgTrgm, btreeGin, btreeGist, uuidOssp, pgcrypto, unaccent, fuzzystrmatch, ltree] =
    await Promise.all([
      import("@electric-sql/pglite/contrib/citext"),
      import("@electric-sql/pglite/contrib/hstore"),
      import("@electric-sql/pglite/contrib/pg_trgm"),
      import("@electric-sql/pglite/contrib/btree_gin"),
      import("@electric-sql/pglite/contrib/btree_gist"),
      import("@electric-sql/pglite/contrib/uuid_ossp"),
      import("@electric-sql/pglite/contrib/pgcrypto"),
      import("@electric-sql/pglite/contrib/unaccent"),
      import("@electric-sql/pglite/contrib/fuzzystrmatch"),
      import("@electric-sql/pglite/contrib/ltree"),
    ]);
  return {
    citext: citext.citext,
    hstore: hstore.hstore,
    pg_trgm: pgTrgm.pg_trgm,
    btree_gin: btreeGin.btree_gin,
    btree_gist: btreeGist.btree_gist,
    "uuid-ossp": uuidOssp.uuid_ossp,
    pgcrypto: pgcrypto.pgcrypto,
    unaccent: unaccent.unaccent,
    fuzzystrmatch: fuzzystrmatch.fuzzystrmatch,
    ltree: ltree.ltree,
  };
}
