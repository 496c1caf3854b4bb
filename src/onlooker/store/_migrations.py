"""The index schema as named, append-only migrations: `m001_initial`, `m002_fts`, ...

Never edit a migration that has shipped; add the next one. Each runs once, in order, inside the
transaction that records its name in the `migrations` table. m003 keeps per-project counts by
severity, status and observer, so listing at 100k findings does not count rows. m006 holds the
embedding vectors; `vector_versions` counts rows added and removed so cached matrices know when to
reload.
m005 holds memory (specs/memory.md): pending events, memories with full-text search, the files they
name, and what each session was shown.
m007 holds what side effects saved and the compliance verifier's verdicts (specs/side-effects.md).
"""

from __future__ import annotations

M001_INITIAL = """
CREATE TABLE findings (
    n INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    observer TEXT NOT NULL,
    content TEXT NOT NULL,
    category TEXT NOT NULL,
    evidence TEXT,
    severity TEXT NOT NULL,
    severity_rank INTEGER NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    acknowledged_at TEXT,
    resolved_at TEXT,
    resolution_note TEXT,
    source_type TEXT NOT NULL,
    source_ref TEXT,
    metadata TEXT NOT NULL,
    occurrences INTEGER NOT NULL DEFAULT 1,
    last_seen_at TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    serial INTEGER NOT NULL
);
CREATE INDEX findings_by_status ON findings (project, status, severity_rank DESC, created_at);
CREATE INDEX findings_by_time ON findings (project, created_at);
CREATE INDEX findings_by_observer ON findings (project, observer, status);
CREATE INDEX findings_unresolved ON findings (project, content_hash) WHERE status != 'resolved';
CREATE TABLE sessions (
    session_id TEXT PRIMARY KEY,
    journal TEXT NOT NULL,
    seq INTEGER NOT NULL,
    snapshot TEXT NOT NULL,
    journal_offset INTEGER NOT NULL,
    saved_at TEXT NOT NULL
);
CREATE TABLE journals (
    path TEXT PRIMARY KEY,
    applied_to INTEGER NOT NULL
);
CREATE TABLE deliveries (
    session_id TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
    delivered_at TEXT NOT NULL
);
CREATE TABLE counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
"""

M002_FTS = """
CREATE VIRTUAL TABLE findings_fts USING fts5(
    content, category, evidence, observer, source_ref, resolution_note,
    content='findings', content_rowid='n'
);
CREATE TRIGGER findings_fts_insert AFTER INSERT ON findings BEGIN
    INSERT INTO findings_fts (rowid, content, category, evidence, observer, source_ref,
                              resolution_note)
    VALUES (new.n, new.content, new.category, new.evidence, new.observer, new.source_ref,
            new.resolution_note);
END;
CREATE TRIGGER findings_fts_delete AFTER DELETE ON findings BEGIN
    INSERT INTO findings_fts (findings_fts, rowid, content, category, evidence, observer,
                              source_ref, resolution_note)
    VALUES ('delete', old.n, old.content, old.category, old.evidence, old.observer,
            old.source_ref, old.resolution_note);
END;
CREATE TRIGGER findings_fts_update AFTER UPDATE OF resolution_note ON findings BEGIN
    INSERT INTO findings_fts (findings_fts, rowid, content, category, evidence, observer,
                              source_ref, resolution_note)
    VALUES ('delete', old.n, old.content, old.category, old.evidence, old.observer,
            old.source_ref, old.resolution_note);
    INSERT INTO findings_fts (rowid, content, category, evidence, observer, source_ref,
                              resolution_note)
    VALUES (new.n, new.content, new.category, new.evidence, new.observer, new.source_ref,
            new.resolution_note);
END;
INSERT INTO findings_fts (findings_fts) VALUES ('rebuild');
"""

M003_COUNTS = """
CREATE TABLE finding_counts (
    project TEXT NOT NULL,
    severity TEXT NOT NULL,
    status TEXT NOT NULL,
    observer TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (project, status, severity, observer)
) WITHOUT ROWID;
INSERT INTO finding_counts (project, severity, status, observer, n)
    SELECT project, severity, status, observer, count(*) FROM findings GROUP BY 1, 2, 3, 4;
CREATE TRIGGER finding_counts_insert AFTER INSERT ON findings BEGIN
    INSERT INTO finding_counts (project, severity, status, observer, n)
    VALUES (new.project, new.severity, new.status, new.observer, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER finding_counts_delete AFTER DELETE ON findings BEGIN
    UPDATE finding_counts SET n = n - 1
    WHERE project = old.project AND severity = old.severity AND status = old.status
      AND observer = old.observer;
END;
CREATE TRIGGER finding_counts_update AFTER UPDATE OF project, severity, status, observer
ON findings BEGIN
    UPDATE finding_counts SET n = n - 1
    WHERE project = old.project AND severity = old.severity AND status = old.status
      AND observer = old.observer;
    INSERT INTO finding_counts (project, severity, status, observer, n)
    VALUES (new.project, new.severity, new.status, new.observer, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
"""


M004_JOBS = """
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    available_at TEXT NOT NULL,
    lease_until TEXT,
    worker TEXT,
    finished_at TEXT,
    error TEXT
);
CREATE INDEX jobs_ready ON jobs (status, available_at, id);
CREATE TABLE observer_runs (
    n INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    observer TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    started_at TEXT NOT NULL,
    duration REAL NOT NULL,
    model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd REAL,
    report TEXT NOT NULL,
    delivered_at TEXT
);
CREATE INDEX observer_runs_by_observer ON observer_runs (project, observer);
CREATE INDEX observer_runs_undelivered ON observer_runs (session_id)
    WHERE delivered_at IS NULL AND report != '';
"""

M005_MEMORY = """
CREATE TABLE pending_events (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    project TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    compressed TEXT NOT NULL,
    files TEXT NOT NULL DEFAULT '',
    timestamp INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX pending_by_session ON pending_events (project, session_id, id);
CREATE TABLE memories (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    project TEXT NOT NULL,
    session_id TEXT,
    timestamp INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    serial INTEGER NOT NULL
);
CREATE INDEX memories_by_project ON memories (project, timestamp);
CREATE INDEX memories_by_time ON memories (timestamp);
CREATE INDEX memories_by_session ON memories (session_id, id);
CREATE TABLE memory_files (
    path TEXT NOT NULL,
    memory_id INTEGER NOT NULL,
    PRIMARY KEY (path, memory_id)
) WITHOUT ROWID;
CREATE INDEX memory_files_by_memory ON memory_files (memory_id);
CREATE TABLE memory_injections (
    session_id TEXT NOT NULL,
    memory_id INTEGER NOT NULL,
    PRIMARY KEY (session_id, memory_id)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE memories_fts USING fts5(
    title, content, content='memories', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, title, content) VALUES (new.id, new.title, new.content);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, title, content)
    VALUES ('delete', old.id, old.title, old.content);
END;
"""

M006_VECTORS = """
CREATE TABLE vectors (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    id INTEGER NOT NULL,
    model TEXT NOT NULL,
    digest TEXT NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE (kind, id)
);
CREATE TABLE vector_versions (
    kind TEXT PRIMARY KEY,
    added INTEGER NOT NULL,
    removed INTEGER NOT NULL
);
CREATE TRIGGER vectors_added AFTER INSERT ON vectors BEGIN
    INSERT INTO vector_versions (kind, added, removed) VALUES (new.kind, 1, 0)
    ON CONFLICT(kind) DO UPDATE SET added = added + 1;
END;
CREATE TRIGGER vectors_removed AFTER DELETE ON vectors BEGIN
    INSERT INTO vector_versions (kind, added, removed) VALUES (old.kind, 0, 1)
    ON CONFLICT(kind) DO UPDATE SET removed = removed + 1;
END;
CREATE TRIGGER vectors_changed AFTER UPDATE ON vectors BEGIN
    INSERT INTO vector_versions (kind, added, removed) VALUES (old.kind, 0, 1)
    ON CONFLICT(kind) DO UPDATE SET removed = removed + 1;
END;
"""

M007_SCORES = """
-- session scores (specs/scoring.md): kept whole as JSON beside their lookup columns
CREATE TABLE scores (
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    agent_name TEXT NOT NULL,
    agent_type TEXT NOT NULL,
    score REAL NOT NULL,
    timestamp INTEGER NOT NULL,
    data TEXT NOT NULL,
    serial INTEGER NOT NULL,
    PRIMARY KEY (project, session_id)
);
CREATE INDEX scores_by_time ON scores (project, timestamp);
CREATE TABLE improvements (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    serial INTEGER NOT NULL
);
CREATE INDEX improvements_by_project ON improvements (project, serial);
CREATE TABLE rejections (
    project TEXT NOT NULL,
    pattern TEXT NOT NULL,
    serial INTEGER NOT NULL,
    PRIMARY KEY (project, pattern)
);
CREATE TABLE observer_settings (
    project TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (project, name)
);
"""

M008_SIDE_EFFECTS = """
CREATE TABLE side_effects (
    n INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    action TEXT NOT NULL,
    tool TEXT NOT NULL,
    call_id TEXT NOT NULL,
    path TEXT NOT NULL,
    source TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    note TEXT NOT NULL,
    at TEXT NOT NULL,
    serial INTEGER NOT NULL,
    UNIQUE (key, path)
);
CREATE INDEX side_effects_by_session ON side_effects (project, session_id, n);
CREATE TABLE compliance_verdicts (
    n INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    agent_type TEXT NOT NULL,
    verdict TEXT NOT NULL,
    missing TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    at TEXT NOT NULL,
    serial INTEGER NOT NULL
);
CREATE INDEX compliance_by_agent ON compliance_verdicts (session_id, agent_id, n);
CREATE INDEX compliance_by_project ON compliance_verdicts (project, n);
"""

M009_PROJECT_KEYS = """
CREATE TABLE upgrades (
    name TEXT PRIMARY KEY,
    done_at TEXT
);
INSERT INTO upgrades (name) VALUES ('project_keys');
"""
"""Marks the move of journals filed under a bare folder name to their project's key as due
(`onlooker reindex` does it, then sets `done_at`)."""

M012_FTS_FOLLOWS_EDITS = """
DROP TRIGGER findings_fts_update;
CREATE TRIGGER findings_fts_update
AFTER UPDATE OF content, category, evidence, observer, source_ref, resolution_note ON findings
BEGIN
    INSERT INTO findings_fts (findings_fts, rowid, content, category, evidence, observer,
                              source_ref, resolution_note)
    VALUES ('delete', old.n, old.content, old.category, old.evidence, old.observer,
            old.source_ref, old.resolution_note);
    INSERT INTO findings_fts (rowid, content, category, evidence, observer, source_ref,
                              resolution_note)
    VALUES (new.n, new.content, new.category, new.evidence, new.observer, new.source_ref,
            new.resolution_note);
END;
INSERT INTO findings_fts (findings_fts) VALUES ('rebuild');
"""
"""Full-text search follows every edit of an indexed column (an episode's finding takes its newest
report's text): it followed only the resolution note, so resolving a finding whose text had
changed deleted tokens it never indexed, and SQLite called the database malformed. The rebuild
mends indexes left that way."""

M013_EXPIRED = """
DROP INDEX findings_unresolved;
CREATE INDEX findings_unresolved ON findings (project, content_hash)
    WHERE status IN ('open', 'acknowledged');
"""
"""Findings may expire (status `expired`): the index of unresolved content hashes, which
deduplication reads, leaves out expired ones as it leaves out resolved ones."""

M014_MEMORY_OPT_OUTS = """
CREATE TABLE memory_opt_outs (
    project TEXT PRIMARY KEY,
    since TEXT NOT NULL
);
"""
"""Projects whose memory is off (`.onlooker/no-memory`, `memory.enabled: false`), as their
sessions last saw it: other projects' digests (`projectOnly: false`) leave their memories out."""

M015_MEMORY_FTS_BY_PROJECT = """
CREATE TABLE memory_projects (
    key INTEGER PRIMARY KEY,
    project TEXT NOT NULL UNIQUE
);
CREATE TABLE memory_versions (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    removed INTEGER NOT NULL
);
INSERT INTO memory_versions (one, removed) VALUES (1, 0);
INSERT INTO memory_projects (project) SELECT DISTINCT project FROM memories ORDER BY project;
CREATE VIRTUAL TABLE memories_fts_by_project USING fts5(
    title, content, content='', tokenize='porter unicode61'
);
INSERT INTO memories_fts_by_project (rowid, title, content)
    SELECT (p.key << 40) | m.id, m.title, m.content
    FROM memories m JOIN memory_projects p ON p.project = m.project;
CREATE TRIGGER memories_fts_by_project_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_projects (project) VALUES (new.project) ON CONFLICT DO NOTHING;
    INSERT INTO memories_fts_by_project (rowid, title, content)
    VALUES (((SELECT key FROM memory_projects WHERE project = new.project) << 40) | new.id,
            new.title, new.content);
END;
CREATE TRIGGER memories_fts_by_project_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts_by_project (memories_fts_by_project, rowid, title, content)
    VALUES ('delete', ((SELECT key FROM memory_projects WHERE project = old.project) << 40)
            | old.id, old.title, old.content);
    UPDATE memory_versions SET removed = removed + 1;
END;
"""
"""Full-text search narrowed to one project before it ranks (specs/memory.md, Search): the same
texts again, in a contentless FTS5 table whose rowid is the project's key shifted left 40 bits
plus the memory id, so one project's matches are one rowid range that FTS5 seeks to. It holds
the same rows and tokens as `memories_fts`, so bm25 scores (idf, average length) are the same.
`memory_versions` counts memories removed, so caches of ids by project know when to reload."""

#: (name, SQL) in the order they apply. Append only.
MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("m001_initial", M001_INITIAL),
    ("m002_fts", M002_FTS),
    ("m003_counts", M003_COUNTS),
    ("m004_jobs", M004_JOBS),
    ("m005_memory", M005_MEMORY),
    ("m006_vectors", M006_VECTORS),
    ("m007_scores", M007_SCORES),
    ("m008_side_effects", M008_SIDE_EFFECTS),
    ("m009_project_keys", M009_PROJECT_KEYS),
    ("m012_fts_follows_edits", M012_FTS_FOLLOWS_EDITS),
    ("m013_expired", M013_EXPIRED),
    ("m014_memory_opt_outs", M014_MEMORY_OPT_OUTS),
    ("m015_memory_fts_by_project", M015_MEMORY_FTS_BY_PROJECT),
)
