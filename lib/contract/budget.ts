/**
 * The one budget table. Every cap in Clamp lives here, with its unit in its name.
 * Text caps are UTF-8 bytes everywhere (cut on a character boundary); lines are counted alongside.
 * Descriptions and notes quote these constants; nothing types the numbers by hand.
 */
export const BUDGET = {
  /** The exit clamp: the most text any one tool result may give the model. */
  TOOL_OUTPUT_MAX_BYTES: 20_000,

  /** read_file: files above this size must be read with an explicit window (offset/limit). */
  READ_WHOLE_FILE_MAX_BYTES: 4 * 1024 * 1024,
  /** read_file: most lines in one window, and the default window. */
  READ_MAX_LINES: 2000,
  /** read_file: most bytes of numbered text in one window (leaves room for the footer under the clamp). */
  READ_WINDOW_MAX_BYTES: 16_000,
  /** read_file: a longer line is cut with a marker. */
  READ_MAX_LINE_BYTES: 2000,
  /** An invalid call's error lists at most this many problems with its arguments (the rest are counted). */
  VALIDATION_ISSUES_MAX_LISTED: 8,
  /** … and quotes a wrong string argument only up to this many characters (a longer one is described by its length). */
  VALIDATION_STRING_QUOTE_MAX_CHARS: 40,
  /** A name the model passed that matched nothing (an unknown skill …), quoted back in the error, is cut to this. */
  NAME_SHOWN_MAX_BYTES: 100,

  /** Binary sniffing: a NUL byte in this many leading bytes marks a binary file. */
  BINARY_SNIFF_BYTES: 8192,
  /** read_file: after the window, the rest of the file is scanned at most this far to count its lines (past it the total is a lower bound). */
  READ_COUNT_MAX_BYTES: 1024 * 1024 * 1024,
  /** read_file line index: a checkpoint (line → byte offset) is kept every this many lines … */
  READ_INDEX_STRIDE_LINES: 16_384,
  /** … or at the first line start this many bytes past the last one (files of few, very long lines); both strides double when a file's checkpoints are thinned. */
  READ_INDEX_STRIDE_BYTES: 4 * 1024 * 1024,
  /** read_file line index: most checkpoints kept per file (past it every other one is dropped). */
  READ_INDEX_MAX_CHECKPOINTS: 4096,
  /** read_file line index: most files indexed at once, least recently read forgotten first (memory ≤ files × checkpoints × 16 bytes). */
  READ_INDEX_MAX_FILES: 32,
  /** "Did you mean …": most directory entries the workspace-wide name search visits. */
  NEAR_NAMES_MAX_VISITED_ENTRIES: 20_000,

  /** list_dir: entries per page. */
  LIST_DIR_MAX_ENTRIES: 200,

  /** glob: most paths returned. */
  GLOB_MAX_RESULTS: 500,

  /** grep: most matching lines returned. */
  GREP_MAX_MATCHES: 200,
  /** grep: a matched line is cut to this many bytes. */
  GREP_MAX_LINE_BYTES: 240,
  /** grep: files larger than this are skipped (and counted). */
  GREP_MAX_FILE_BYTES: 1024 * 1024,
  /** grep: the walk stops after visiting this many files (and says so). */
  GREP_MAX_FILES_VISITED: 200_000,
  /** grep: most lines of context around a match. */
  GREP_MAX_CONTEXT_LINES: 10,

  /** edit_file / write_file: largest file they will rewrite. */
  EDIT_MAX_FILE_BYTES: 4 * 1024 * 1024,
  /** edit_file: a loose match may span at most this many times the lines of old_string (plus slack). */
  EDIT_LOOSE_SPAN_MAX_RATIO: 1.5,
  /** edit_file: lines and bytes a loose match may exceed that ratio by (small old_strings need room for drift). */
  EDIT_LOOSE_SPAN_SLACK_LINES: 2,
  EDIT_LOOSE_SPAN_SLACK_BYTES: 64,
  /** edit_file: first/last-line anchor matches need at least this similarity (0–1) between the middles. */
  EDIT_ANCHOR_MIN_SIMILARITY_RATIO: 0.8,
  /** edit_file / apply_patch: lines of the closest region shown when old text is not found. */
  EDIT_CLOSEST_REGION_MAX_LINES: 8,
  /** edit_file / apply_patch: each line of that region is cut to this many bytes. */
  EDIT_CLOSEST_REGION_MAX_LINE_BYTES: 300,
  /** edit_file: most line numbers listed when old_string matches several places. */
  EDIT_MATCH_LINES_MAX_LISTED: 20,
  /** Diffs in results are cut to this many bytes for the model (the page gets the full diff). */
  DIFF_MAX_BYTES: 8000,
  /** Longest time spent finding a minimal diff; past it a correct but coarse one-hunk diff is given. */
  DIFF_COMPUTE_MAX_MS: 1000,

  /** run_command: in-memory capture per stream; the rest goes only to the log file. */
  COMMAND_CAPTURE_MAX_BYTES: 256 * 1024,
  /** run_command: default and maximum timeout. */
  COMMAND_TIMEOUT_DEFAULT_MS: 120_000,
  COMMAND_TIMEOUT_MAX_MS: 600_000,
  COMMAND_TIMEOUT_MIN_MS: 1000,
  /** Grace between SIGTERM and SIGKILL for a process group. */
  COMMAND_KILL_GRACE_MS: 2000,
  /** run_command / tasks: live output is published at most this often … */
  COMMAND_PROGRESS_INTERVAL_MS: 50,
  /** … and at most this many bytes per stream per interval (the rest is counted; the log has it). */
  COMMAND_PROGRESS_MAX_BYTES: 16 * 1024,

  /** The sandbox's limits on one command (a build never meets them; a runaway does); CLAMP_SANDBOX_LIMITS changes them. Processes (threads count): a cgroup's pids.max where one is writable, else RLIMIT_NPROC (not enforced for root). */
  SANDBOX_PROCESSES_MAX_COUNT: 4096,
  /** … memory, as a share of the machine's: a cgroup's limit on all its processes where one is writable, and RLIMIT_DATA on each process always. */
  SANDBOX_MEMORY_MAX_PERCENT: 50,
  /** … the largest file a process may write (RLIMIT_FSIZE). */
  SANDBOX_FILE_MAX_BYTES: 8 * 1024 * 1024 * 1024,
  /** … how often a running command's cgroup is checked for a hit of the process limit (a hit stops the command). */
  SANDBOX_LIMIT_POLL_MS: 500,
  /** The sandbox's network (a session's namespace, its proxy and forwarded ports): how often its listening ports are looked at (a new one is forwarded to the host's 127.0.0.1) … */
  SANDBOX_PORT_POLL_MS: 500,
  /** … how long its start (the namespace, the proxy's forwarder) may take before a command runs without it (no network) … */
  SANDBOX_NET_START_TIMEOUT_MS: 10_000,
  /** … how long it stays up with no command running in it, so a burst of commands starts it once … */
  SANDBOX_NET_IDLE_MS: 60_000,
  /** … and how long the proxy waits for an allowed host to accept a connection (and for a request's headers). */
  SANDBOX_PROXY_CONNECT_TIMEOUT_MS: 15_000,
  /** The hosts a proxy refusal note names at most (the rest are counted). */
  SANDBOX_REFUSED_HOSTS_MAX_LISTED: 5,

  /** run_command / task_output: a command quoted back in a result (a started task, a read) is cut to this. */
  COMMAND_SHOWN_MAX_BYTES: 200,
  /** task_list: each task's command is cut to this in its one-line entry. */
  TASK_LIST_COMMAND_MAX_BYTES: 160,

  /** Background tasks: in-memory unread output kept per stream; the log on disk holds everything. */
  TASK_CAPTURE_MAX_BYTES: 512 * 1024,
  /** task_output: most bytes of new output returned per stream per read. */
  TASK_OUTPUT_MAX_BYTES: 8000,
  /** task_output: longest wait for new output. */
  TASK_WAIT_MAX_MS: 60_000,
  /** Background tasks: most running at once (a new one is refused past it). */
  TASK_MAX_RUNNING: 32,
  /** Background tasks: most kept in the list; the oldest finished ones are forgotten first (their logs stay). */
  TASK_MAX_KEPT: 100,

  /** web_fetch: response body kept; the rest is drained and counted. */
  WEB_RESPONSE_MAX_BYTES: 2 * 1024 * 1024,
  /** web_fetch: past the kept body, at most this much more is drained and counted (then the total is a lower bound). */
  WEB_DRAIN_MAX_BYTES: 64 * 1024 * 1024,
  /** web_fetch / web_search: longest wait for the response headers (connecting included). */
  WEB_CONNECT_TIMEOUT_MS: 15_000,
  /** web_fetch / web_search: longest time for the whole request, redirects and body included. */
  WEB_TOTAL_TIMEOUT_MS: 30_000,
  /** web_fetch: same-host redirects followed in one call. */
  WEB_REDIRECT_MAX_COUNT: 5,
  /** web_fetch: max_bytes may be at most the exit clamp minus this (the header and notes are then fitted with the text, measured). */
  WEB_FETCH_NOTES_RESERVE_BYTES: 1500,
  /** web_fetch / web_search: a URL or page title quoted in a result is cut to this. */
  URL_SHOWN_MAX_BYTES: 300,
  /** web_search / memory_search: the query quoted back in a result is cut to this. */
  QUERY_SHOWN_MAX_BYTES: 200,
  /** web_fetch: bytes of an error page (404, 500 …) quoted in the error. */
  WEB_ERROR_EXCERPT_BYTES: 500,
  /** web_search: results returned by default, and at most. */
  WEB_SEARCH_DEFAULT_RESULTS: 5,
  WEB_SEARCH_MAX_RESULTS: 10,
  /** web_search: each result's snippet, and its title, is cut to this many bytes. */
  WEB_SEARCH_SNIPPET_MAX_BYTES: 400,
  WEB_SEARCH_TITLE_MAX_BYTES: 200,

  /** Project docs (AGENTS.md / CLAUDE.md) in the system prompt. */
  PROJECT_DOCS_MAX_BYTES: 20_000,
  /** A skill body loaded by the skill tool. */
  SKILL_BODY_MAX_BYTES: 20_000,
  /** todo_write: most items. */
  TODO_MAX_ITEMS: 50,
  /** todo_write: longest item text (a plan step, not a document). */
  TODO_ITEM_MAX_BYTES: 500,
  /** todo lists kept in process memory (the most recently written sessions); the database holds them all. */
  TODO_CACHE_MAX_SESSIONS: 200,

  /** git_status: most changed paths listed (the rest are counted). */
  GIT_STATUS_MAX_ENTRIES: 200,
  /** git_status: each listed line is cut to this. */
  GIT_STATUS_LINE_MAX_BYTES: 1000,
  /** git_diff: most bytes of diff text shown; the full diff stays in the run's log file. */
  GIT_DIFF_MAX_BYTES: 16_000,
  /** git_log: commits shown by default, and at most. */
  GIT_LOG_DEFAULT_COMMITS: 20,
  GIT_LOG_MAX_COMMITS: 100,
  /** git_log / git_commit: a commit subject is cut to this many bytes. */
  GIT_LOG_SUBJECT_MAX_BYTES: 200,
  /** git_log: an author name is cut to this many bytes. */
  GIT_LOG_AUTHOR_MAX_BYTES: 80,
  /** git tools: a git process is killed after this long (hooks run by git_commit included). */
  GIT_TIMEOUT_MS: 60_000,

  /** memory_save: longest memory (one self-contained sentence). */
  MEMORY_MAX_BYTES: 500,
  /** memory_search: most memories returned, and most bytes of them. */
  MEMORY_SEARCH_MAX_RESULTS: 20,
  MEMORY_SEARCH_MAX_BYTES: 6000,
  /** GET /api/memories: most memories listed for the page (newest first). */
  MEMORY_LIST_MAX_ITEMS: 1000,

  /** Skills: most skills found (the rest are counted and skipped). */
  SKILLS_MAX_COUNT: 100,
  /** Skills: a SKILL.md larger than this is skipped (counted as invalid). */
  SKILL_FILE_MAX_BYTES: 1024 * 1024,
  /** Skills: the system-prompt section listing names and descriptions. */
  SKILLS_PROMPT_MAX_BYTES: 4000,
  /** Skills: a description longer than this is cut in the listing. */
  SKILL_DESCRIPTION_MAX_BYTES: 300,
  /** Commands from files (.claude/commands …): a larger file, or one past the count, is skipped and named with why in /help; a longer description is cut in the / menu with a note saying how much. */
  COMMAND_FILE_MAX_BYTES: 256 * 1024,
  COMMAND_FILES_MAX_COUNT: 200,
  COMMAND_DESCRIPTION_MAX_BYTES: 300,
  /** Agent types from files (.claude/agents …): the same caps, the description cut in the system prompt's list of types. */
  AGENT_FILE_MAX_BYTES: 256 * 1024,
  AGENT_FILES_MAX_COUNT: 50,
  AGENT_DESCRIPTION_MAX_BYTES: 300,

  /** Tool definitions (name + description + JSON schema) listed on every request, in o200k_base tokens (agent and ask_user took it from 4,000). */
  TOOL_DEFINITIONS_MAX_TOKENS: 4300,

  /** Sessions: longest title, in characters (code points); the first user message is cut to it. */
  SESSION_TITLE_MAX_CHARS: 80,
  /** REST routes: largest JSON body a settings/sessions/rules request may send (413 past it). */
  API_BODY_MAX_BYTES: 64 * 1024,
  /** POST /api/chat: largest body (a user message's text, or a continuation that names a message by id); 413 past it. */
  CHAT_BODY_MAX_BYTES: 512 * 1024,
  /** POST an approval answer: largest JSON body (an edited command or file content rides along). */
  APPROVAL_BODY_MAX_BYTES: 256 * 1024,
  /** GET a file page (the page's output viewer): most bytes per page, and the page size when none is asked for. */
  FILE_PAGE_MAX_BYTES: 512 * 1024,
  FILE_PAGE_DEFAULT_BYTES: 256 * 1024,
  /** The server's door: largest request body it lets through to any route (413 before a byte is read); a body must declare its length (411). */
  DOOR_BODY_MAX_BYTES: 8 * 1024 * 1024,
  /** The launcher: how often it checks that the process that started it (npm, a shell) is still there. */
  LAUNCHER_PARENT_POLL_MS: 1000,
  /** Settings "Test connection": longest wait for a provider's model list, connecting included. */
  MODEL_LIST_TIMEOUT_MS: 5000,
  /** Settings "Test connection": most bytes of a model list read, and most models offered in the picker. */
  MODEL_LIST_MAX_BYTES: 4 * 1024 * 1024,
  MODEL_LIST_MAX_ITEMS: 1000,

  /** Per-step budget: share of the remaining context window given to one step's results. */
  TURN_BUDGET_SHARE: 0.35,
  TURN_BUDGET_MIN_BYTES: 4000,
  TURN_BUDGET_MAX_BYTES: 120_000,
  /** Per-step budget: no result is cut below this, however many share the step. */
  TURN_BUDGET_RESULT_MIN_BYTES: 600,

  /** Session context: room kept free for the model's answer, as a share of the window … */
  CONTEXT_OUTPUT_RESERVE_RATIO: 0.15,
  /** … and at most this many tokens. */
  CONTEXT_OUTPUT_RESERVE_MAX_TOKENS: 16_000,
  /** Session context: past this share of the window (estimated), old tool results are pruned to stubs. */
  CONTEXT_PRUNE_AT_RATIO: 0.5,
  /** … oldest first, until the estimate is under this share (a batch at a time, so the cached prefix changes seldom). */
  CONTEXT_PRUNE_TO_RATIO: 0.3,
  /** Session context: past this share of the window after pruning, older steps are compacted into a summary. */
  CONTEXT_COMPACT_AT_RATIO: 0.75,
  /** Session context: the results of the last this many steps are never pruned, and compaction keeps them verbatim. */
  CONTEXT_KEEP_RECENT_STEPS: 3,
  /** Session context: results smaller than this are never pruned (a stub would save nothing). */
  CONTEXT_PRUNE_MIN_RESULT_BYTES: 600,
  /** Session context: the provider's count over Clamp's estimate corrects the next estimate, within these bounds. */
  CONTEXT_ESTIMATE_CORRECTION_MIN_RATIO: 0.5,
  CONTEXT_ESTIMATE_CORRECTION_MAX_RATIO: 3,
  /** Compaction: the summary the model writes, at most this many tokens … */
  COMPACTION_SUMMARY_MAX_TOKENS: 2000,
  /** … and at most this share of the window (small windows get a shorter summary). */
  COMPACTION_SUMMARY_MAX_WINDOW_RATIO: 0.12,
  /** Compaction: the focus typed with /compact, at most this many bytes. */
  COMPACTION_FOCUS_MAX_BYTES: 1000,
  /** Asking a local server (vLLM, Ollama, LM Studio, llama.cpp) for its context window: longest wait per request. */
  WINDOW_DISCOVERY_TIMEOUT_MS: 2000,
  /** … and how long an answer (or the lack of one) is remembered per server and model: in the process, and in the data dir for the next one. */
  WINDOW_DISCOVERY_CACHE_MS: 10 * 60_000,

  /** agent (subagents): most model steps one child may take before it must stop and report. */
  SUBAGENT_MAX_STEPS: 30,
  /** agent: most tokens (input + output, as the provider counts them, over all its steps) one child may spend. */
  SUBAGENT_MAX_TOKENS: 400_000,
  /** agent: the child's final report the parent receives, at most this many bytes (the transcript keeps everything). */
  SUBAGENT_REPORT_MAX_BYTES: 8000,
  /** agent: the task the parent hands a child, at most this many bytes. */
  SUBAGENT_PROMPT_MAX_BYTES: 20_000,
  /** agent: a child's calls listed live under the parent's card (the transcript has every one). */
  SUBAGENT_CALLS_SHOWN_MAX: 200,
  /** ask_user: the question, at most this many bytes. */
  ASK_QUESTION_MAX_BYTES: 2000,
  /** ask_user: most choices offered, and each choice's length in bytes. */
  ASK_CHOICES_MAX_COUNT: 8,
  ASK_CHOICE_MAX_BYTES: 200,
  /** ask_user: the person's answer, at most this many bytes (a longer one is cut with a note). */
  ASK_ANSWER_MAX_BYTES: 4000,
  /** A call waiting for a person (a child's approval, ask_user) also checks the store this often, besides being woken by the answer. */
  WAIT_POLL_MS: 500,
  /** A process running a session's turn renews its lock in the database this often … */
  SESSION_LOCK_HEARTBEAT_MS: 5000,
  /** … and a lock not renewed for this long is taken over (its process hung or is on another machine); a dead process's lock at once. */
  SESSION_LOCK_STALE_MS: 30_000,
  /** MCP: longest wait for one tool call (the turn's Stop ends it sooner); a server's progress does not extend it. */
  MCP_CALL_TIMEOUT_MS: 120_000,
  /** MCP: longest wait for a server to start and answer its handshake and tool list. */
  MCP_CONNECT_TIMEOUT_MS: 30_000,
  /** MCP: a crashed server is restarted after this wait, doubled at each crash in a row up to the max … */
  MCP_RESTART_BACKOFF_MIN_MS: 1000,
  MCP_RESTART_BACKOFF_MAX_MS: 60_000,
  /** … and given up on after this many crashes in a row (the page's Restart tries again). */
  MCP_RESTART_MAX_ATTEMPTS: 5,
  /** MCP: a server's stderr log is started afresh past this size. */
  MCP_LOG_MAX_BYTES: 1024 * 1024,
  /** MCP: a tool's description from its server is cut to this many bytes. */
  MCP_TOOL_DESCRIPTION_MAX_BYTES: 2000,
  /** MCP: a tool whose input schema is larger than this (JSON bytes) is skipped, with a note on the page. */
  MCP_TOOL_SCHEMA_MAX_BYTES: 16_000,
  /** MCP: longest tool name a provider takes (mcp__<server>__<tool>, in characters); longer names are cut. */
  MCP_TOOL_NAME_MAX_CHARS: 64,
  /** MCP: an image in a result is passed to the model up to this size (bytes of image data) … */
  MCP_IMAGE_MAX_BYTES: 1024 * 1024,
  /** … and at most this many images per result; the rest are named in a note. */
  MCP_IMAGES_MAX_COUNT: 4,
  /** MCP: an embedded resource's text in a result, at most this many bytes (then cut with a note). */
  MCP_RESOURCE_MAX_BYTES: 16_000,
  /** Deferred tools: when the enabled MCP tools' definitions cost more than this (o200k_base tokens), they are not sent; tool_search loads them. */
  MCP_TOOLS_ALWAYS_LOADED_MAX_TOKENS: 4000,
  /** Deferred tools: the built-in definitions always sent stay within this share of the model's window (the least-used are deferred past it). */
  BUILTIN_TOOLS_WINDOW_MAX_RATIO: 0.1,
  /** Deferred tools: each one's line in the system prompt (name and first sentence), at most this many bytes. */
  DEFERRED_TOOL_LINE_MAX_BYTES: 160,
  /** tool_search: most tool definitions one search returns. */
  TOOL_SEARCH_MAX_RESULTS: 5,
  /** Checkpoints: a file larger than this is left out of the snapshot (and listed as skipped). */
  CHECKPOINT_FILE_MAX_BYTES: 10 * 1024 * 1024,
  /** Checkpoints: the longest one git run of the shadow repository may take. */
  CHECKPOINT_GIT_TIMEOUT_MS: 5 * 60_000,
  /** Checkpoints: a process using a shadow repository renews its lock file this often … */
  CHECKPOINT_LOCK_HEARTBEAT_MS: 2000,
  /** … and another process takes the lock over when its holder died or it was not renewed for this long. */
  CHECKPOINT_LOCK_STALE_MS: 30_000,
  /** Checkpoints: a lock git left in a shadow repository (index.lock, HEAD.lock) is removed only once this old, with no process using the repository. */
  CHECKPOINT_GIT_LOCK_STALE_MS: 10_000,
  /** Rewind preview and changes view: most files given a diff (the rest are listed without one, truncated: true). */
  CHECKPOINT_DIFF_MAX_FILES: 200,
  /** … a file larger than this on either side is listed without a diff. */
  CHECKPOINT_DIFF_FILE_MAX_BYTES: 1024 * 1024,
  /** … one file's diff is cut to this, with a note. */
  CHECKPOINT_DIFF_MAX_BYTES: 64 * 1024,
  /** … all diffs of one answer together at most this. */
  CHECKPOINT_DIFFS_MAX_BYTES: 2 * 1024 * 1024,
  /** An interrupted call's error quotes the end of its log, at most this much. */
  INTERRUPTED_LOG_MAX_BYTES: 4000,
  /** Composer: most @-mentioned files attached to one message (each is one read_file, under read_file's caps). */
  MENTION_MAX_COUNT: 10,
  /** Composer: most paths one @-completion answers with … */
  MENTION_COMPLETIONS_MAX_ITEMS: 50,
  /** … and most workspace files it walks to find them (through glob's ignore rules). */
  MENTION_SCAN_MAX_FILES: 20_000,
  /** Composer: largest image attached (decoded bytes; the page scales a larger one down first) … */
  ATTACH_IMAGE_MAX_BYTES: 1024 * 1024,
  /** … and most images in one message. */
  ATTACH_IMAGES_MAX_COUNT: 4,
  /** Composer: most text files attached to one message (each is cut like a read, to TOOL_OUTPUT_MAX_BYTES). */
  ATTACH_TEXT_FILES_MAX_COUNT: 10,
  /** POST /api/chat with images: largest body (text bodies stay under CHAT_BODY_MAX_BYTES); 413 past it. */
  CHAT_BODY_WITH_IMAGES_MAX_BYTES: 6 * 1024 * 1024,
  /** Composer: the text of a /<skill> command's arguments, at most this many bytes. */
  SKILL_ARGS_MAX_BYTES: 4000,
  /** Session import: largest JSON export accepted, and most messages in it. */
  SESSION_IMPORT_MAX_BYTES: 6 * 1024 * 1024,
  SESSION_IMPORT_MAX_MESSAGES: 20_000,
  /** The per-session model picker: how long a provider's model list is remembered. */
  MODEL_PICKER_CACHE_MS: 60_000,
  /** Diagnostics after edits: longest a write call's result waits for its language server's answer; past it the result returns saying they are pending, and they follow when they arrive (with the model's next tool result or the next message, and on the call's card). */
  DIAGNOSTICS_WAIT_MS: 1500,
  /** Diagnostics after edits: longest one change's check goes on (its server's start included); past it the late report says they were not ready. */
  DIAGNOSTICS_TIMEOUT_MS: 60_000,
  /** Diagnostics after edits: most new errors listed in a result (the rest are counted). */
  DIAGNOSTICS_MAX_SHOWN: 10,
  /** Diagnostics after edits: each listed error's message is cut to this many bytes. */
  DIAGNOSTICS_MESSAGE_MAX_BYTES: 400,
  /** Diagnostics after edits: a file larger than this is not sent to a language server. */
  DIAGNOSTICS_FILE_MAX_BYTES: 2 * 1024 * 1024,
  /** Diagnostics after edits: a server that pushes diagnostics is given this long of quiet after its last push before its answer counts as complete. */
  DIAGNOSTICS_SETTLE_MS: 300,
  /** Language servers: longest a server may take to start and answer initialize (a check gives up at DIAGNOSTICS_TIMEOUT_MS, the server keeps starting; past this it is given up). */
  LSP_START_TIMEOUT_MS: 60_000,
  /** Language servers: grace between the shutdown request and a kill, when Clamp stops or a server is turned off. */
  LSP_SHUTDOWN_GRACE_MS: 2000,
  /** Hooks: longest one hook command runs when its definition gives no `timeout` (seconds, Claude Code's field); past it the hook is stopped and fails as configured. */
  HOOK_TIMEOUT_DEFAULT_MS: 60_000,
  /** Hooks: the text of one hook the model reads (its context, its reason) is cut to this many bytes, with the exit clamp's note (the whole text spilled). */
  HOOK_OUTPUT_MAX_BYTES: 10_000,
  /** Hooks: a hook's reason on the call's card and in notices is cut to this many bytes. */
  HOOK_REASON_MAX_BYTES: 2000,
  /** Hooks: how many times Stop hooks may make one turn go on (each time the model reads their reason). */
  HOOK_STOP_CONTINUES_MAX: 1,
  /** The database: backups made before migrations (data dir's backups/) kept, newest first; older ones are removed. */
  DB_BACKUPS_MAX_FILES: 5,
  /** Retention: command logs and spilled outputs older than this are removed (at start, then every RETENTION_SWEEP_INTERVAL_MS); the settings page can change it. */
  RETENTION_MAX_AGE_MS: 14 * 24 * 60 * 60_000,
  /** Retention: logs and spills together are kept under this size, the oldest removed first; the settings page can change it. */
  RETENTION_OUTPUTS_MAX_BYTES: 2 * 1024 * 1024 * 1024,
  /** Retention: how often the data dir is swept (the first sweep runs at start). */
  RETENTION_SWEEP_INTERVAL_MS: 60 * 60_000,
  /** Retention: the size budget never removes a file written to this recently (another Clamp on the data dir may be writing it). */
  RETENTION_RECENT_MS: 60 * 60_000,
  /** Retention: the record of removed files (the data dir's retention/removed.jsonl) is trimmed to its newer half past this size. */
  RETENTION_JOURNAL_MAX_BYTES: 1024 * 1024,
} as const;

export type Budget = { -readonly [K in keyof typeof BUDGET]: number };

/** A mutable copy of the table; tests lower a cap through ctx.budget, never by editing BUDGET. */
export function budgetTable(overrides: Partial<Budget> = {}): Budget {
  return { ...BUDGET, ...overrides };
}
