'use client';

import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { FilePage } from '@/lib/contract/protocol';
import type { McpPatchBody, McpServerView, McpToolInfo, McpView } from '@/lib/contract/mcp-rest';
import { fetchJson } from './api';
import { useMcpMutation } from './use-mcp';

/** the end of a server's log shown in the dialog, in bytes */
const LOG_TAIL_BYTES = 64 * 1024;

export const smallBtn = 'rounded border border-zinc-300 px-1.5 py-0.5 text-xs hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800';

const STATUS_CLS: Record<McpServerView['status'], string> = {
  running: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  starting: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300',
  stopped: 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300',
  disabled: 'bg-zinc-100 text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400',
  crashed: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
  failed: 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-300',
  'needs-approval': 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
};

const SOURCE_LABEL: Record<McpServerView['source'], string> = { settings: 'yours', file: 'CLAMP_MCP_CONFIG', workspace: '.mcp.json' };

function ServerLog({ path }: { path: string }) {
  const log = useQuery({
    queryKey: ['mcp-log', path],
    queryFn: async () => {
      const head = await fetchJson<FilePage>(`/api/files?path=${encodeURIComponent(path)}&offset=0&limit=1`);
      const from = Math.max(0, head.totalBytes - LOG_TAIL_BYTES);
      return fetchJson<FilePage>(`/api/files?path=${encodeURIComponent(path)}&offset=${from}&limit=${LOG_TAIL_BYTES}`);
    },
    retry: false,
  });
  return (
    <div className="mt-1 space-y-1">
      <p className="break-all font-mono text-[11px] text-zinc-500">{path}</p>
      {log.isLoading && <p className="text-xs text-zinc-500">Loading…</p>}
      {log.error && <p className="text-xs text-rose-700">{log.error.message}</p>}
      {log.data && (
        <pre aria-label="Server log" className="max-h-48 overflow-auto whitespace-pre-wrap rounded bg-zinc-950 p-2 font-mono text-[11px] text-zinc-100">
          {log.data.offset > 0 ? `… (the log's first ${log.data.offset} bytes are not shown)\n` : ''}
          {log.data.text || '(empty)'}
        </pre>
      )}
    </div>
  );
}

function ToolRow({ tool, onPatch, busy }: { tool: McpToolInfo; onPatch: (t: NonNullable<McpPatchBody['tool']>) => void; busy: boolean }) {
  return (
    <li className="flex flex-wrap items-center gap-2 px-2 py-1 text-xs" data-tool={tool.clampName}>
      <label className="flex min-w-0 flex-1 items-center gap-1.5">
        <input type="checkbox" checked={tool.state === 'enabled'} disabled={tool.state === 'skipped' || busy} onChange={(e) => onPatch({ name: tool.name, enabled: e.target.checked })} aria-label={`Offer ${tool.name}`} />
        <span className="font-mono">{tool.name}</span>
        {tool.state === 'enabled' && <span className="text-zinc-500">{tool.tokens} tokens</span>}
        <span className={`rounded px-1 ${tool.effect === 'read' ? 'bg-emerald-50 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300' : 'bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300'}`}>{tool.effect}</span>
      </label>
      {tool.state !== 'skipped' && (
        <>
          {tool.readOnlyHint && (
            <label className="flex items-center gap-1 text-zinc-600 dark:text-zinc-400" title="The server marks it read-only: it runs without asking unless you untick this">
              <input type="checkbox" checked={tool.effect === 'read'} disabled={busy} onChange={(e) => onPatch({ name: tool.name, trustReadOnly: e.target.checked })} aria-label={`Trust ${tool.name} to be read-only`} />
              read-only
            </label>
          )}
          <select value={tool.policy} disabled={busy} onChange={(e) => onPatch({ name: tool.name, policy: e.target.value as McpToolInfo['policy'] })} aria-label={`Policy for ${tool.name}`} className="rounded border border-zinc-300 bg-white px-1 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-950">
            <option value="ask">{tool.effect === 'read' ? 'run (read-only)' : 'ask'}</option>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
          </select>
        </>
      )}
      {tool.note && <p className={`w-full pl-5 ${tool.state === 'skipped' ? 'text-rose-700 dark:text-rose-400' : 'text-zinc-500'}`}>{tool.state === 'skipped' ? `Skipped: ${tool.note}` : tool.note}</p>}
    </li>
  );
}

type OnPatch = (b: McpPatchBody) => void;

/** A server's name, where it is defined, its status and what its tools cost. */
function ServerTitle({ s }: { s: McpServerView }) {
  const enabledTools = s.tools.filter((t) => t.state === 'enabled').length;
  return (
    <>
      <span className="font-mono text-sm font-medium">{s.name}</span>
      <span className="rounded bg-zinc-100 px-1 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300" title={s.origin}>
        {SOURCE_LABEL[s.source]}
      </span>
      <span className={`rounded px-1 font-medium ${STATUS_CLS[s.status]}`} data-status={s.status}>
        {s.status === 'needs-approval' ? 'needs approval' : s.status}
      </span>
      <span className="text-zinc-500">
        {enabledTools} tool{enabledTools === 1 ? '' : 's'} · {s.tokens} tokens
      </span>
    </>
  );
}

interface ServerActionsProps {
  s: McpServerView;
  busy: boolean;
  onPatch: OnPatch;
  onRemove: () => void;
  log: boolean;
  onLog: () => void;
  onEdit: (s: McpServerView) => void;
}

function ServerActions({ s, busy, onPatch, onRemove, log, onLog, onEdit }: ServerActionsProps) {
  return (
    <span className="ml-auto flex gap-1">
      {s.status === 'needs-approval' && (
        <button type="button" className={`${smallBtn} border-amber-400 bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-200`} disabled={busy} onClick={() => onPatch({ approve: true })}>
          Approve and start
        </button>
      )}
      <button type="button" className={smallBtn} disabled={busy} onClick={() => onPatch({ enabled: s.status === 'disabled' })}>
        {s.status === 'disabled' ? 'Enable' : 'Disable'}
      </button>
      {s.status !== 'disabled' && s.status !== 'needs-approval' && (
        <button type="button" className={smallBtn} disabled={busy} onClick={() => onPatch({ restart: true })}>
          Restart
        </button>
      )}
      <button type="button" className={smallBtn} aria-expanded={log} onClick={onLog}>
        Log
      </button>
      {s.source === 'settings' && (
        <>
          <button type="button" className={smallBtn} onClick={() => onEdit(s)}>
            Edit
          </button>
          <button type="button" className={`${smallBtn} hover:text-rose-700`} disabled={busy} onClick={onRemove} aria-label={`Remove server ${s.name}`}>
            Remove
          </button>
        </>
      )}
    </span>
  );
}

/** What the server runs or reaches, with the names (never the values) of its environment and headers. */
function ServerTarget({ s }: { s: McpServerView }) {
  return (
    <p className="break-all font-mono text-[11px] text-zinc-600 dark:text-zinc-400">
      {s.transport === 'stdio' ? '$ ' : `${s.transport} `}
      {s.target}
      {s.envNames.length > 0 && <span className="text-zinc-500"> · env {s.envNames.join(', ')}</span>}
      {s.headerNames.length > 0 && <span className="text-zinc-500"> · headers {s.headerNames.join(', ')}</span>}
    </p>
  );
}

function StartChoice({ s, busy, onPatch }: { s: McpServerView; busy: boolean; onPatch: OnPatch }) {
  return (
    <label className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
      Start
      <select value={s.options.startup} disabled={busy} onChange={(e) => onPatch({ startup: e.target.value as 'launch' | 'first-use' })} aria-label={`When ${s.name} starts`} className="rounded border border-zinc-300 bg-white px-1 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-950">
        <option value="launch">when Clamp starts</option>
        <option value="first-use">on first use</option>
      </select>
    </label>
  );
}

/** A server's tools, shown on demand, each with its switch, trust and policy. */
function ServerTools({ s, busy, onPatch }: { s: McpServerView; busy: boolean; onPatch: OnPatch }) {
  const [open, setOpen] = useState(false);
  const skipped = s.tools.filter((t) => t.state === 'skipped').length;
  return (
    <>
      {s.tools.length > 0 && (
        <button type="button" className="text-xs text-sky-700 hover:underline dark:text-sky-400" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide tools' : `Show ${s.tools.length} tools`}
          {skipped > 0 ? ` (${skipped} skipped)` : ''}
        </button>
      )}
      {open && (
        <ul className="divide-y divide-zinc-100 rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {s.tools.map((t) => (
            <ToolRow key={t.name} tool={t} busy={busy} onPatch={(tool) => onPatch({ tool })} />
          ))}
        </ul>
      )}
    </>
  );
}

/** One MCP server of the settings page: its status and actions, what it runs, when it starts, its tools and its log. */
export function ServerItem({ s, onEdit }: { s: McpServerView; onEdit: (s: McpServerView) => void }) {
  const [log, setLog] = useState(false);
  const patch = useMcpMutation((b: McpPatchBody) => fetchJson<McpView>(`/api/mcp/${encodeURIComponent(s.name)}`, { method: 'PATCH', body: JSON.stringify(b) }));
  const remove = useMcpMutation(() => fetchJson<McpView>(`/api/mcp/${encodeURIComponent(s.name)}`, { method: 'DELETE' }));
  const busy = patch.isPending || remove.isPending;
  const onPatch = (b: McpPatchBody) => patch.mutate(b);
  return (
    <li className="space-y-1 px-2 py-2" data-server={s.name}>
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <ServerTitle s={s} />
        <ServerActions s={s} busy={busy} onPatch={onPatch} onRemove={() => remove.mutate()} log={log} onLog={() => setLog(!log)} onEdit={onEdit} />
      </div>
      <ServerTarget s={s} />
      {s.status === 'needs-approval' && <p className="text-xs text-amber-800 dark:text-amber-300">This repository&apos;s .mcp.json wants to run it. Nothing runs until you approve this exact definition; a change to it asks again. Once approved, its command runs in the sandbox: it may write the workspace, not the rest of your files; it sees no secrets; and it reaches the network only when the sandbox&apos;s network setting allows it.</p>}
      {s.error && <p className="text-xs text-rose-700 dark:text-rose-400">{s.error}</p>}
      {(patch.error || remove.error) && <p className="text-xs text-rose-700">{(patch.error ?? remove.error)!.message}</p>}
      <StartChoice s={s} busy={busy} onPatch={onPatch} />
      <ServerTools s={s} busy={busy} onPatch={onPatch} />
      {log && <ServerLog path={s.logPath} />}
    </li>
  );
}
