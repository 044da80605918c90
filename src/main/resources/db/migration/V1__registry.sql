-- The stream registry (SPEC 1-3). Names are stored in lower case; full names are "catalog.schema.name".

CREATE TABLE secret_scopes (
    name        VARCHAR(255) PRIMARY KEY,
    owner       VARCHAR(255) NOT NULL,
    created_at  TIMESTAMPTZ  NOT NULL
);

CREATE TABLE secret_scope_acls (
    id          BIGSERIAL    PRIMARY KEY,
    scope       VARCHAR(255) NOT NULL REFERENCES secret_scopes (name) ON DELETE CASCADE,
    principal   VARCHAR(255) NOT NULL,
    permission  VARCHAR(16)  NOT NULL,
    CONSTRAINT secret_scope_acls_unique UNIQUE (scope, principal)
);

-- value: AES-GCM, 96-bit nonce followed by ciphertext and tag; associated data "secret:<scope>/<key>".
CREATE TABLE secrets (
    id          BIGSERIAL    PRIMARY KEY,
    scope       VARCHAR(255) NOT NULL REFERENCES secret_scopes (name) ON DELETE CASCADE,
    secret_key  VARCHAR(255) NOT NULL,
    value       BYTEA        NOT NULL,
    updated_at  TIMESTAMPTZ  NOT NULL,
    CONSTRAINT secrets_unique UNIQUE (scope, secret_key)
);

-- options: the connection options as JSON without the password; the password is AES-GCM encrypted apart
-- (associated data "connection:<name>").
CREATE TABLE connections (
    name             VARCHAR(255) PRIMARY KEY,
    connection_type  VARCHAR(32)  NOT NULL,
    options          TEXT         NOT NULL,
    password         BYTEA,
    owner            VARCHAR(255) NOT NULL,
    created_at       TIMESTAMPTZ  NOT NULL
);

-- Ingestion tables (kind INGESTION, created with their stream) and registered external tables (kind EXTERNAL).
CREATE TABLE registered_tables (
    full_name         VARCHAR(767) PRIMARY KEY,
    storage_location  TEXT         NOT NULL,
    kind              VARCHAR(16)  NOT NULL,
    owner             VARCHAR(255) NOT NULL,
    created_at        TIMESTAMPTZ  NOT NULL
);

CREATE TABLE streams (
    id                       VARCHAR(36)  PRIMARY KEY,
    full_name                VARCHAR(767) NOT NULL UNIQUE,
    catalog_name             VARCHAR(255) NOT NULL,
    schema_name              VARCHAR(255) NOT NULL,
    definition               TEXT         NOT NULL,
    table_name               VARCHAR(767) NOT NULL UNIQUE REFERENCES registered_tables (full_name),
    connection_name          VARCHAR(255) REFERENCES connections (name),
    created_by               VARCHAR(255) NOT NULL,
    created_at               TIMESTAMPTZ  NOT NULL,
    backfill_state           VARCHAR(32)  NOT NULL,
    backfill_max_timestamp   TIMESTAMPTZ,
    ingestion_min_timestamp  TIMESTAMPTZ,
    backfill_forced          BOOLEAN      NOT NULL DEFAULT FALSE,
    rows_merged              BIGINT,
    completed_at             TIMESTAMPTZ,
    CONSTRAINT streams_backfill_state CHECK (backfill_state IN
        ('NOT_CONFIGURED', 'WAITING_FOR_OVERLAP', 'MERGING', 'COMPLETED', 'FAILED'))
);

-- The list query: one catalog (and optionally one schema), ordered by full name, keyset-paged by full name.
CREATE INDEX streams_by_catalog ON streams (catalog_name, full_name);
CREATE INDEX streams_by_schema ON streams (catalog_name, schema_name, full_name);
CREATE INDEX streams_by_connection ON streams (connection_name);

-- securable_type: TABLE or CONNECTION; privilege as the API spells it (SELECT, MANAGE, USE CONNECTION).
CREATE TABLE grants (
    id              BIGSERIAL    PRIMARY KEY,
    securable_type  VARCHAR(16)  NOT NULL,
    securable_name  VARCHAR(767) NOT NULL,
    principal       VARCHAR(255) NOT NULL,
    privilege       VARCHAR(32)  NOT NULL,
    CONSTRAINT grants_unique UNIQUE (securable_type, securable_name, principal, privilege)
);

-- The list query's readability filter looks grants up by (type, name, principal, privilege): grants_unique serves it.
