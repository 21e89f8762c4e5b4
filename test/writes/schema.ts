/**
 * The schema of the write-semantics tests: one table exercising every
 * column capability a body cares about (read-only, default, immutable,
 * nullable, hidden, computed, unique, enum, numeric, array).
 */
export const GADGETS = `
enum mood { calm busy }

table gadgets {
  id         bigint        @primary_key @default(identity)
  sku        text          @unique @filterable
  name       text          @sortable
  note       text?
  mood       mood          @default(calm)
  weight     numeric(6,2)? @check("weight >= 0")
  made_on    date?
  tags       text[]        @default("{}")
  serial     text          @immutable
  secret     text          @hidden @default("s")
  created_at timestamptz   @default(now()) @read_only @sortable
  label      text          @computed("name || '-' || sku")
  resource "/gadgets" { ops = [crud, list] }
}
`;
