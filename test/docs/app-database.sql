-- The "existing database" docs/lifecycle.md adopts with `resc pull` (test/docs/commands.test.ts loads it where
-- the page says postgres://app@db/app): an enum, bigint identity keys, a foreign key, a nullable column.
CREATE TYPE task_status AS ENUM ('todo', 'doing', 'done');

CREATE TABLE projects (
  id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE
);

CREATE TABLE tasks (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id bigint NOT NULL REFERENCES projects (id),
  title      text NOT NULL,
  status     task_status NOT NULL DEFAULT 'todo',
  notes      text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tasks_project_id ON tasks (project_id);

INSERT INTO projects (name) VALUES ('first');
INSERT INTO tasks (project_id, title) VALUES (1, 'adopt the database');
