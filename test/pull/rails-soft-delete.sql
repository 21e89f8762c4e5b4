-- A small help desk as a Rails 7 application's db/structure.sql lays it out, written for
-- test/pull/soft-delete.test.ts (docs/decisions/1369-pulled-soft-delete.md): bigint keys numbered by a
-- sequence each table owns, `timestamp(6) without time zone` for every datetime, index_<table>_on_<column>
-- names, schema_migrations and ar_internal_metadata. Soft deletes the way the two common gems make them:
-- paranoia's `deleted_at` (accounts, agents, tickets, replies) and discard's `discarded_at` (macros);
-- `archived_at` is a state of a live row, not a removal. tags and taggings delete for real.

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;
SET client_min_messages = warning;

CREATE TABLE public.accounts (
    id bigint NOT NULL,
    name character varying NOT NULL,
    subdomain character varying NOT NULL,
    plan character varying DEFAULT 'free'::character varying NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL,
    deleted_at timestamp(6) without time zone
);

CREATE SEQUENCE public.accounts_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.accounts_id_seq OWNED BY public.accounts.id;

CREATE TABLE public.agents (
    id bigint NOT NULL,
    account_id bigint NOT NULL,
    email character varying DEFAULT ''::character varying NOT NULL,
    encrypted_password character varying DEFAULT ''::character varying NOT NULL,
    reset_password_token character varying,
    name character varying NOT NULL,
    admin boolean DEFAULT false NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL,
    deleted_at timestamp(6) without time zone
);

CREATE SEQUENCE public.agents_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.agents_id_seq OWNED BY public.agents.id;

CREATE TABLE public.tickets (
    id bigint NOT NULL,
    account_id bigint NOT NULL,
    assignee_id bigint,
    subject character varying NOT NULL,
    body text,
    status integer DEFAULT 0 NOT NULL,
    priority integer DEFAULT 1 NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL,
    deleted_at timestamp(6) without time zone
);

CREATE SEQUENCE public.tickets_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.tickets_id_seq OWNED BY public.tickets.id;

CREATE TABLE public.replies (
    id bigint NOT NULL,
    ticket_id bigint NOT NULL,
    agent_id bigint,
    body text NOT NULL,
    internal boolean DEFAULT false NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL,
    deleted_at timestamp(6) without time zone
);

CREATE SEQUENCE public.replies_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.replies_id_seq OWNED BY public.replies.id;

CREATE TABLE public.macros (
    id bigint NOT NULL,
    account_id bigint NOT NULL,
    title character varying NOT NULL,
    actions jsonb DEFAULT '[]'::jsonb NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL,
    archived_at timestamp(6) without time zone,
    discarded_at timestamp(6) without time zone
);

CREATE SEQUENCE public.macros_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.macros_id_seq OWNED BY public.macros.id;

CREATE TABLE public.tags (
    id bigint NOT NULL,
    name character varying NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);

CREATE SEQUENCE public.tags_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.tags_id_seq OWNED BY public.tags.id;

CREATE TABLE public.taggings (
    id bigint NOT NULL,
    tag_id bigint NOT NULL,
    ticket_id bigint NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);

CREATE SEQUENCE public.taggings_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.taggings_id_seq OWNED BY public.taggings.id;

CREATE TABLE public.schema_migrations (
    version character varying NOT NULL
);

CREATE TABLE public.ar_internal_metadata (
    key character varying NOT NULL,
    value character varying,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);

ALTER TABLE ONLY public.accounts ALTER COLUMN id SET DEFAULT nextval('public.accounts_id_seq'::regclass);
ALTER TABLE ONLY public.agents ALTER COLUMN id SET DEFAULT nextval('public.agents_id_seq'::regclass);
ALTER TABLE ONLY public.tickets ALTER COLUMN id SET DEFAULT nextval('public.tickets_id_seq'::regclass);
ALTER TABLE ONLY public.replies ALTER COLUMN id SET DEFAULT nextval('public.replies_id_seq'::regclass);
ALTER TABLE ONLY public.macros ALTER COLUMN id SET DEFAULT nextval('public.macros_id_seq'::regclass);
ALTER TABLE ONLY public.tags ALTER COLUMN id SET DEFAULT nextval('public.tags_id_seq'::regclass);
ALTER TABLE ONLY public.taggings ALTER COLUMN id SET DEFAULT nextval('public.taggings_id_seq'::regclass);

ALTER TABLE ONLY public.accounts ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.agents ADD CONSTRAINT agents_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.tickets ADD CONSTRAINT tickets_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.replies ADD CONSTRAINT replies_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.macros ADD CONSTRAINT macros_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.tags ADD CONSTRAINT tags_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.taggings ADD CONSTRAINT taggings_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.schema_migrations ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);
ALTER TABLE ONLY public.ar_internal_metadata ADD CONSTRAINT ar_internal_metadata_pkey PRIMARY KEY (key);

CREATE UNIQUE INDEX index_accounts_on_subdomain ON public.accounts USING btree (subdomain);
CREATE INDEX index_accounts_on_deleted_at ON public.accounts USING btree (deleted_at);
CREATE INDEX index_agents_on_account_id ON public.agents USING btree (account_id);
CREATE UNIQUE INDEX index_agents_on_email ON public.agents USING btree (email);
CREATE UNIQUE INDEX index_agents_on_reset_password_token ON public.agents USING btree (reset_password_token);
CREATE INDEX index_agents_on_deleted_at ON public.agents USING btree (deleted_at);
CREATE INDEX index_tickets_on_account_id ON public.tickets USING btree (account_id);
CREATE INDEX index_tickets_on_assignee_id ON public.tickets USING btree (assignee_id);
CREATE INDEX index_tickets_on_status ON public.tickets USING btree (status);
CREATE INDEX index_tickets_on_deleted_at ON public.tickets USING btree (deleted_at);
CREATE INDEX index_replies_on_ticket_id ON public.replies USING btree (ticket_id);
CREATE INDEX index_replies_on_agent_id ON public.replies USING btree (agent_id);
CREATE INDEX index_replies_on_deleted_at ON public.replies USING btree (deleted_at);
CREATE INDEX index_macros_on_account_id ON public.macros USING btree (account_id);
CREATE INDEX index_macros_on_discarded_at ON public.macros USING btree (discarded_at);
CREATE UNIQUE INDEX index_tags_on_name ON public.tags USING btree (name);
CREATE INDEX index_taggings_on_tag_id ON public.taggings USING btree (tag_id);
CREATE UNIQUE INDEX index_taggings_on_ticket_id_and_tag_id ON public.taggings USING btree (ticket_id, tag_id);

ALTER TABLE ONLY public.agents ADD CONSTRAINT fk_rails_0a6f3b8c21 FOREIGN KEY (account_id) REFERENCES public.accounts(id);
ALTER TABLE ONLY public.tickets ADD CONSTRAINT fk_rails_5d1e4a7b90 FOREIGN KEY (account_id) REFERENCES public.accounts(id);
ALTER TABLE ONLY public.tickets ADD CONSTRAINT fk_rails_9c2b7e3f14 FOREIGN KEY (assignee_id) REFERENCES public.agents(id);
ALTER TABLE ONLY public.replies ADD CONSTRAINT fk_rails_3e8a1d6c55 FOREIGN KEY (ticket_id) REFERENCES public.tickets(id);
ALTER TABLE ONLY public.replies ADD CONSTRAINT fk_rails_7b4f2c9a08 FOREIGN KEY (agent_id) REFERENCES public.agents(id);
ALTER TABLE ONLY public.macros ADD CONSTRAINT fk_rails_1f9d5b2e73 FOREIGN KEY (account_id) REFERENCES public.accounts(id);
ALTER TABLE ONLY public.taggings ADD CONSTRAINT fk_rails_6a3c8e1b42 FOREIGN KEY (tag_id) REFERENCES public.tags(id);
ALTER TABLE ONLY public.taggings ADD CONSTRAINT fk_rails_2d7f9a4c61 FOREIGN KEY (ticket_id) REFERENCES public.tickets(id);

SET search_path TO "$user", public;

INSERT INTO "schema_migrations" (version) VALUES
('20240110090000'),
('20240111093000'),
('20240115120000'),
('20240203101500');

INSERT INTO "ar_internal_metadata" (key, value, created_at, updated_at) VALUES
('environment', 'development', '2024-01-10 09:00:00', '2024-01-10 09:00:00');
