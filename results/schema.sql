-- results/schema.sql: version 1 of the kbench result store. This file is the
-- single source of the schema: the build embeds it into db.c as migration
-- step 1 (results/meson.build). Later changes are new migration steps in
-- db.c, never edits here once a release has shipped. docs/schema.md explains
-- every column for the readers (compare, nightly, publish).
-- Times: "*_at" columns are unix time (seconds, REAL); "*_s" columns and t
-- columns are durations in seconds.

CREATE TABLE kernels (
        id              TEXT PRIMARY KEY NOT NULL,   -- sha256 hex of the kernel image
        name            TEXT NOT NULL UNIQUE,
        release         TEXT,                        -- uname -r
        source          TEXT,                        -- what it was imported from
        added_at        REAL NOT NULL
);

CREATE TABLE runs (
        id              INTEGER PRIMARY KEY,
        tag             TEXT,
        settings_json   TEXT NOT NULL,
        host            TEXT,
        host_info_json  TEXT,
        qemu_version    TEXT,
        libvirt_version TEXT,
        kbench_version  TEXT,
        started_at      REAL NOT NULL,
        finished_at     REAL,                        -- NULL while running
        status          TEXT NOT NULL DEFAULT 'running'
);

CREATE TABLE cells (
        id              INTEGER PRIMARY KEY,
        run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        cell_key        TEXT NOT NULL,
        kernel_id       TEXT NOT NULL REFERENCES kernels(id),
        workload        TEXT NOT NULL,
        params_json     TEXT,
        iteration       INTEGER NOT NULL CHECK (iteration >= 0),
        attempt         INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1),
        state           TEXT NOT NULL CHECK (state IN ('ok', 'infra-error', 'boot-timeout',
                                'boot-crash', 'runtime-crash', 'hang', 'workload-failure',
                                'corrupt-output')),
        detail          TEXT,
        accel           TEXT CHECK (accel IS NULL OR accel IN ('kvm', 'tcg')),
        started_at      REAL,
        boot_s          REAL,                        -- QEMU start -> agent ready
        workload_s      REAL,                        -- go -> done
        total_s         REAL,                        -- QEMU start -> domain gone
        exit_code       INTEGER,                     -- -1: none
        rejected_records INTEGER NOT NULL DEFAULT 0,
        UNIQUE (run_id, cell_key, attempt)
);
CREATE INDEX cells_by_run ON cells(run_id, kernel_id, workload);
CREATE INDEX cells_by_kernel ON cells(kernel_id, workload, state);

CREATE TABLE metrics (
        cell_id         INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
        name            TEXT NOT NULL,
        value           REAL,                        -- NULL: measured, no number (see note)
        unit            TEXT NOT NULL,
        note            TEXT,
        PRIMARY KEY (cell_id, name)
) WITHOUT ROWID;
CREATE INDEX metrics_by_name ON metrics(name, cell_id);

CREATE TABLE vmstat (
        cell_id         INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
        seq             INTEGER NOT NULL,            -- record sequence number on ttyS1
        t_host          REAL,                        -- host arrival, s since QEMU start
        t_guest         REAL,                        -- guest monotonic, s
        first           INTEGER NOT NULL DEFAULT 0,  -- 1: since-boot average row
        r REAL, b REAL, swpd REAL, free REAL, buff REAL, cache REAL,
        si REAL, so REAL, bi REAL, bo REAL, "in" REAL, cs REAL,
        us REAL, sy REAL, id REAL, wa REAL, st REAL, gu REAL,
        dirty REAL, writeback REAL,
        PRIMARY KEY (cell_id, seq)
) WITHOUT ROWID;

CREATE TABLE timeline (
        cell_id         INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
        kind            TEXT NOT NULL,
        t               REAL NOT NULL,               -- s since QEMU start
        value           REAL
);
CREATE INDEX timeline_by_cell ON timeline(cell_id, kind, t);

CREATE TABLE logs (
        cell_id         INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
        stream          TEXT NOT NULL,
        text            BLOB NOT NULL,
        PRIMARY KEY (cell_id, stream)
);
