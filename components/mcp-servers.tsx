'use client';

import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FilePage } from '@/lib/contract/protocol';
import type { McpPatchBody, McpServerBody, McpServerView, McpToolInfo, McpView } from '@/lib/contract/mcp-rest';
import { fetchJson } from './api';
import { btnPlainCls, inputCls } from './settings-form';

const MCP_KEY = ['mcp'] as const;
/** the end of a server's log shown in the dialog, in bytes */
const LOG_TAIL_BYTES = 64 * 1024;

const smallBtn = 'rounded border border-zinc-300 px-1.5 py-0.5 text-xs hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800';

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

function useMcp() {
  return useQuery({ queryKey: MCP_KEY, queryFn: () => fetchJson<McpView>('/api/mcp'), refetchInterval: (q) => (q.state.data?.servers.some((s) => s.status === 'starting' || s.status === 'crashed') ? 1000 : false) });
}

function useMcpMutation<V>(fn: (v: V) => Promise<McpView>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: (view) => qc.setQueryData(MCP_KEY, view) });
}

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

function ServerItem({ s, onEdit }: { s: McpServerView; onEdit: (s: McpServerView) => void }) {
  const [open, setOpen] = useState(false);
  const [log, setLog] = useState(false);
  const patch = useMcpMutation((b: McpPatchBody) => fetchJson<McpView>(`/api/mcp/${encodeURIComponent(s.name)}`, { method: 'PATCH', body: JSON.stringify(b) }));
  const remove = useMcpMutation(() => fetchJson<McpView>(`/api/mcp/${encodeURIComponent(s.name)}`, { method: 'DELETE' }));
  const busy = patch.isPending || remove.isPending;
  const enabledTools = s.tools.filter((t) => t.state === 'enabled').length;
  return (
    <li className="space-y-1 px-2 py-2" data-server={s.name}>
      <div className="flex flex-wrap items-center gap-2 text-xs">
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
        <span className="ml-auto flex gap-1">
          {s.status === 'needs-approval' && (
            <button type="button" className={`${smallBtn} border-amber-400 bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-200`} disabled={busy} onClick={() => patch.mutate({ approve: true })}>
              Approve and start
            </button>
          )}
          <button type="button" className={smallBtn} disabled={busy} onClick={() => patch.mutate({ enabled: s.status === 'disabled' })}>
            {s.status === 'disabled' ? 'Enable' : 'Disable'}
          </button>
          {s.status !== 'disabled' && s.status !== 'needs-approval' && (
            <button type="button" className={smallBtn} disabled={busy} onClick={() => patch.mutate({ restart: true })}>
              Restart
            </button>
          )}
          <button type="button" className={smallBtn} aria-expanded={log} onClick={() => setLog(!log)}>
            Log
          </button>
          {s.source === 'settings' && (
            <>
              <button type="button" className={smallBtn} onClick={() => onEdit(s)}>
                Edit
              </button>
              <button type="button" className={`${smallBtn} hover:text-rose-700`} disabled={busy} onClick={() => remove.mutate()} aria-label={`Remove server ${s.name}`}>
                Remove
              </button>
            </>
          )}
        </span>
      </div>
      <p className="break-all font-mono text-[11px] text-zinc-600 dark:text-zinc-400">
        {s.transport === 'stdio' ? '$ ' : `${s.transport} `}
        {s.target}
        {s.envNames.length > 0 && <span className="text-zinc-500"> · env {s.envNames.join(', ')}</span>}
        {s.headerNames.length > 0 && <span className="text-zinc-500"> · headers {s.headerNames.join(', ')}</span>}
      </p>
      {s.status === 'needs-approval' && <p className="text-xs text-amber-800 dark:text-amber-300">This repository&apos;s .mcp.json wants to run it. Nothing runs until you approve this exact definition; a change to it asks again. Once approved, its command runs in the sandbox: it may write the workspace, not the rest of your files; it sees no secrets; and it reaches the network only when the sandbox&apos;s network setting allows it.</p>}
      {s.error && <p className="text-xs text-rose-700 dark:text-rose-400">{s.error}</p>}
      {(patch.error || remove.error) && <p className="text-xs text-rose-700">{(patch.error ?? remove.error)!.message}</p>}
      <label className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
        Start
        <select value={s.options.startup} disabled={busy} onChange={(e) => patch.mutate({ startup: e.target.value as 'launch' | 'first-use' })} aria-label={`When ${s.name} starts`} className="rounded border border-zinc-300 bg-white px-1 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-950">
          <option value="launch">when Clamp starts</option>
          <option value="first-use">on first use</option>
        </select>
      </label>
      {s.tools.length > 0 && (
        <button type="button" className="text-xs text-sky-700 hover:underline dark:text-sky-400" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide tools' : `Show ${s.tools.length} tools`}
          {s.tools.some((t) => t.state === 'skipped') ? ` (${s.tools.filter((t) => t.state === 'skipped').length} skipped)` : ''}
        </button>
      )}
      {open && (
        <ul className="divide-y divide-zinc-100 rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {s.tools.map((t) => (
            <ToolRow key={t.name} tool={t} busy={busy} onPatch={(tool) => patch.mutate({ tool })} />
          ))}
        </ul>
      )}
      {log && <ServerLog path={s.logPath} />}
    </li>
  );
}

/** "KEY=value" lines (or "Name: value" for headers) → a record; blank lines skipped. */
function parsePairs(text: string, sep: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(sep);
    if (line.trim() === '' || i <= 0) continue;
    out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

function ServerForm({ initial, onDone }: { initial: McpServerView | null; onDone: () => void }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [transport, setTransport] = useState<'stdio' | 'http' | 'sse'>(initial?.transport ?? 'stdio');
  const [command, setCommand] = useState(initial?.transport === 'stdio' ? initial.target.split(' ')[0] : '');
  const [args, setArgs] = useState(initial?.transport === 'stdio' ? initial.target.split(' ').slice(1).join('\n') : '');
  const [url, setUrl] = useState(initial && initial.transport !== 'stdio' ? initial.target : '');
  const [pairs, setPairs] = useState('');
  const save = useMcpMutation((b: McpServerBody) => fetchJson<McpView>('/api/mcp', { method: 'POST', body: JSON.stringify(b) }));
  const submit = () => {
    const body: McpServerBody =
      transport === 'stdio'
        ? { name: name.trim(), command: command.trim(), args: args.split('\n').map((a) => a.trim()).filter(Boolean), env: parsePairs(pairs, '=') }
        : { name: name.trim(), type: transport, url: url.trim(), headers: parsePairs(pairs, ':') };
    save.mutate(body, { onSuccess: onDone });
  };
  const secretHelp = transport === 'stdio' ? 'Environment, one KEY=value a line' : 'Headers, one "Name: value" a line';
  return (
    <form
      className="space-y-2 rounded border border-zinc-200 p-2 dark:border-zinc-800"
      aria-label={initial ? `Edit server ${initial.name}` : 'Add an MCP server'}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div className="flex gap-2">
        <input className={inputCls} placeholder="name" aria-label="Server name" value={name} onChange={(e) => setName(e.target.value)} readOnly={!!initial} />
        <select className={inputCls} aria-label="Transport" value={transport} onChange={(e) => setTransport(e.target.value as typeof transport)}>
          <option value="stdio">stdio (a program)</option>
          <option value="http">HTTP (Streamable, SSE fallback)</option>
          <option value="sse">SSE only</option>
        </select>
      </div>
      {transport === 'stdio' ? (
        <>
          <input className={inputCls} placeholder="command, e.g. npx" aria-label="Command" value={command} onChange={(e) => setCommand(e.target.value)} />
          <textarea className={inputCls} rows={2} placeholder="arguments, one a line" aria-label="Arguments" value={args} onChange={(e) => setArgs(e.target.value)} />
        </>
      ) : (
        <input className={inputCls} placeholder="https://…/mcp" aria-label="URL" value={url} onChange={(e) => setUrl(e.target.value)} />
      )}
      <textarea className={inputCls} rows={2} placeholder={secretHelp} aria-label={secretHelp} value={pairs} onChange={(e) => setPairs(e.target.value)} />
      <p className="text-[11px] text-zinc-500">
        {transport === 'stdio' ? 'Environment values' : 'Header values'} are kept in the data dir&apos;s secrets.json (mode 0600), never in the database
        {initial ? '; type them again when you edit a server' : ''}.
      </p>
      {save.error && <p className="text-xs text-rose-700">{save.error.message}</p>}
      <div className="flex justify-end gap-2">
        <button type="button" className={btnPlainCls} onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className={btnPlainCls} disabled={save.isPending}>
          {save.isPending ? 'Starting…' : initial ? 'Save server' : 'Add server'}
        </button>
      </div>
    </form>
  );
}

/** The settings page's MCP servers: status, tools and their token cost, approval of .mcp.json servers, add/edit/remove, logs. */
export function McpServers() {
  const mcp = useMcp();
  const [form, setForm] = useState<{ initial: McpServerView | null } | null>(null);
  const v = mcp.data;
  return (
    <section aria-labelledby="mcp-h" className="space-y-2">
      <div className="flex items-center gap-2">
        <h3 id="mcp-h" className="text-sm font-semibold">
          MCP servers
        </h3>
        {v && (
          <span className="text-xs text-zinc-500" data-testid="mcp-tokens">
            {v.mcpTokens} of {v.mcpTokensMax} tokens{v.deferred ? ' — over: deferred behind tool_search' : ''}
          </span>
        )}
        {!form && (
          <button type="button" className={`${smallBtn} ml-auto`} onClick={() => setForm({ initial: null })}>
            Add server
          </button>
        )}
      </div>
      {mcp.isLoading && <p className="text-xs text-zinc-500">Loading…</p>}
      {mcp.error && <p className="text-xs text-rose-700">{mcp.error.message}</p>}
      {v?.problems.map((p) => (
        <p key={p} className="text-xs text-rose-700 dark:text-rose-400">
          {p}
        </p>
      ))}
      {form && <ServerForm key={form.initial?.name ?? 'new'} initial={form.initial} onDone={() => setForm(null)} />}
      {v && v.servers.length === 0 && <p className="text-xs text-zinc-500">No MCP servers. Add one here, in a file named by CLAMP_MCP_CONFIG, or in the workspace&apos;s .mcp.json.</p>}
      {v && v.servers.length > 0 && (
        <ul className="divide-y divide-zinc-100 rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {v.servers.map((s) => (
            <ServerItem key={s.name} s={s} onEdit={(x) => setForm({ initial: x })} />
          ))}
        </ul>
      )}
    </section>
  );
}
