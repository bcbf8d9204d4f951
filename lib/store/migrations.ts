/**
 * The store's schema, one migration at a time (lib/store/db.ts applies them).
 */

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Numbered migrations, applied in order, each once (recorded in schema_version).
 * Never edit a released migration: add the next number.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, messages, approvals, rules, settings, memories (FTS5)',
    sql: `
      CREATE TABLE sessions (
        id          TEXT PRIMARY KEY,
        workspace   TEXT NOT NULL,
        title       TEXT NOT NULL,
        -- 0 while the title is the placeholder; the first user message then names the session
        title_set   INTEGER NOT NULL DEFAULT 0,
        mode        TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE INDEX sessions_workspace_updated ON sessions(workspace, updated_at DESC);

      -- the chat as AI SDK UIMessage objects, one row each, in order
      CREATE TABLE messages (
        session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position    INTEGER NOT NULL,
        id          TEXT NOT NULL,
        role        TEXT NOT NULL,
        json        TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
      );
      CREATE INDEX messages_session_message ON messages(session_id, id);

      CREATE TABLE approvals (
        approval_id     TEXT PRIMARY KEY,
        session_id      TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tool_call_id    TEXT NOT NULL,
        tool_name       TEXT NOT NULL,
        input_json      TEXT NOT NULL,
        info_json       TEXT,
        status          TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'consumed')),
        answer          TEXT CHECK (answer IN ('once', 'session', 'always', 'edit', 'deny')),
        edited_command  TEXT,
        reason          TEXT,
        created_at      INTEGER NOT NULL,
        answered_at     INTEGER
      );
      CREATE UNIQUE INDEX approvals_session_tool_call ON approvals(session_id, tool_call_id);
      CREATE INDEX approvals_session_status ON approvals(session_id, status);

      -- saved ("always") rules have no session; session rules die with their session
      CREATE TABLE rules (
        id          TEXT PRIMARY KEY,
        workspace   TEXT NOT NULL,
        session_id  TEXT REFERENCES sessions(id) ON DELETE CASCADE,
        tool        TEXT NOT NULL,
        pattern     TEXT NOT NULL,
        action      TEXT NOT NULL CHECK (action IN ('allow', 'deny', 'ask')),
        created_at  INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX rules_unique ON rules(workspace, ifnull(session_id, ''), tool, pattern, action);
      CREATE INDEX rules_lookup ON rules(workspace, tool);

      CREATE TABLE settings (
        key         TEXT PRIMARY KEY,
        json        TEXT NOT NULL,
        updated_at  INTEGER NOT NULL
      );

      -- memory_save / memory_search: kept per workspace across sessions, full-text searchable
      CREATE TABLE memories (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        workspace   TEXT NOT NULL,
        content     TEXT NOT NULL,
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX memories_workspace_created ON memories(workspace, created_at DESC);
      CREATE VIRTUAL TABLE memories_fts USING fts5(
        content, workspace UNINDEXED,
        content = 'memories', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER memories_after_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts(rowid, content, workspace) VALUES (new.id, new.content, new.workspace);
      END;
      CREATE TRIGGER memories_after_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, content, workspace) VALUES ('delete', old.id, old.content, old.workspace);
      END;
      CREATE TRIGGER memories_after_update AFTER UPDATE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, content, workspace) VALUES ('delete', old.id, old.content, old.workspace);
        INSERT INTO memories_fts(rowid, content, workspace) VALUES (new.id, new.content, new.workspace);
      END;
    `,
  },
  {
    version: 2,
    name: 'todos (the plan of each session)',
    sql: `
      -- todo_write replaces the whole list at once, so one row per session holds it as JSON.
      -- No foreign key: the tool CLI keeps its list under a fixed key that names no session.
      CREATE TABLE todos (
        session_id  TEXT PRIMARY KEY,
        json        TEXT NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE TRIGGER sessions_after_delete_todos AFTER DELETE ON sessions BEGIN
        DELETE FROM todos WHERE session_id = old.id;
      END;
    `,
  },
  {
    version: 3,
    name: 'approvals: "allow network" for the one approved call',
    sql: `
      ALTER TABLE approvals ADD COLUMN network INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 4,
    name: 'checkpoints, branches (rewound messages) and the tool-call journal',
    sql: `
      -- a snapshot of the workspace in the shadow repository (lib/checkpoints): commit is its commit there
      CREATE TABLE checkpoints (
        id            TEXT PRIMARY KEY,
        session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        message_id    TEXT,
        tool_call_id  TEXT,
        kind          TEXT NOT NULL CHECK (kind IN ('turn', 'rewind', 'revert')),
        commit_sha    TEXT NOT NULL,
        file_count    INTEGER NOT NULL,
        skipped_json  TEXT NOT NULL,
        created_at    INTEGER NOT NULL
      );
      CREATE INDEX checkpoints_session_created ON checkpoints(session_id, created_at);

      -- the messages a conversation rewind took out, kept readable
      CREATE TABLE branches (
        id               TEXT PRIMARY KEY,
        session_id       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        from_message_id  TEXT NOT NULL,
        messages_json    TEXT NOT NULL,
        message_count    INTEGER NOT NULL,
        preview          TEXT NOT NULL,
        created_at       INTEGER NOT NULL
      );
      CREATE INDEX branches_session_created ON branches(session_id, created_at);

      -- write-ahead: each tool call is stored before it runs; one still 'running' from another boot was cut short by a restart
      CREATE TABLE tool_calls (
        session_id         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tool_call_id       TEXT NOT NULL,
        message_id         TEXT NOT NULL,
        user_message_id    TEXT,
        tool_name          TEXT NOT NULL,
        input_json         TEXT NOT NULL,
        step_parts_json    TEXT NOT NULL,
        status             TEXT NOT NULL CHECK (status IN ('running', 'done', 'interrupted')),
        boot_id            TEXT NOT NULL,
        checkpoint_id      TEXT,
        -- the ToolResult once it ended (so a step the crash cut short keeps its finished calls)
        result_json        TEXT,
        started_at         INTEGER NOT NULL,
        finished_at        INTEGER,
        PRIMARY KEY (session_id, tool_call_id)
      );
      CREATE INDEX tool_calls_running ON tool_calls(status, session_id);
    `,
  },
  {
    version: 6,
    name: 'subagents: sessions with a parent; ask_user answers',
    sql: `
      -- a subagent's conversation is a session of its own, started by its parent's agent call;
      -- it goes with its parent
      ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE;
      ALTER TABLE sessions ADD COLUMN parent_call_id TEXT;
      ALTER TABLE sessions ADD COLUMN agent_type TEXT;
      CREATE INDEX sessions_parent ON sessions(parent_id);
      -- ask_user's question waits as an approval; the person's answer is kept here
      ALTER TABLE approvals ADD COLUMN reply TEXT;
    `,
  },
  {
    version: 7,
    name: "sessions: the session's own model (the header's picker)",
    sql: `
      -- provider:model, or NULL for the default model (the settings page, else the environment)
      ALTER TABLE sessions ADD COLUMN model TEXT;
    `,
  },
  {
    version: 8,
    name: 'session locks: one process at a time runs a session',
    sql: `
      -- held by the process running a turn of the session (the server or a clamp run): its pid, host and a
      -- random id of the process; renewed while the turn runs, deleted when it ends, taken over once stale
      CREATE TABLE session_locks (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        owner TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        holder TEXT NOT NULL,
        taken_at INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 9,
    name: 'worktrees: a session on its own git worktree',
    sql: `
      -- the session's branch and folder (NULL while pending: its first message names them), the branch it came
      -- from, the main checkout, and how it stands (pending, active, kept, merged, discarded)
      CREATE TABLE session_worktrees (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        state TEXT NOT NULL,
        branch TEXT,
        base TEXT NOT NULL,
        path TEXT,
        repo TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: "spending: tokens and cost per session and day; a session's own limits",
    sql: `
      -- every model request's tokens and cost (where the model has prices), by the listed session (a subagent's count
      -- toward its parent) and the local day; kept when a session is deleted, so a day's spending stays whole
      CREATE TABLE spend (
        session_id TEXT NOT NULL,
        day TEXT NOT NULL,
        tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, day)
      );
      CREATE INDEX spend_day ON spend(day);
      -- a limit the person raised when the session reached it (NULL: the settings' apply)
      CREATE TABLE session_limits (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        max_tokens INTEGER,
        max_cost_usd REAL
      );
    `,
  },
];
