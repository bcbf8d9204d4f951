'use client';

import { useState } from 'react';
import type { McpServerBody, McpServerView, McpView } from '@/lib/contract/mcp-rest';
import { fetchJson } from './api';
import { ServerItem, smallBtn } from './mcp-server-item';
import { btnPlainCls, inputCls } from './settings-form';
import { useMcp, useMcpMutation } from './use-mcp';

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
