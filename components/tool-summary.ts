/** The key arguments of a tool call in one line: `src/app.ts 1–200`, `npm test`. */
export function toolArgs(name: string, input: unknown): string {
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const str = (k: string) => (typeof i[k] === 'string' ? (i[k] as string) : undefined);
  const num = (k: string) => (typeof i[k] === 'number' ? (i[k] as number) : undefined);
  const quote = (s: string) => (/[\s"]/.test(s) ? JSON.stringify(s) : s);
  switch (name) {
    case 'read_file': {
      const path = str('path') ?? '';
      const offset = num('offset');
      const limit = num('limit');
      if (offset === undefined && limit === undefined) return path;
      const start = offset ?? 1;
      return `${path} ${start}–${limit !== undefined ? start + limit - 1 : 'end'}`;
    }
    case 'list_dir':
      return str('path') || '.';
    case 'grep': {
      const parts = [quote(str('pattern') ?? '')];
      if (str('path')) parts.push(str('path')!);
      if (str('include')) parts.push(`--include ${str('include')}`);
      if (i.ignore_case) parts.push('-i');
      if (i.literal) parts.push('--literal');
      return parts.join(' ');
    }
    case 'glob':
      return [str('pattern'), str('path')].filter(Boolean).join(' in ');
    case 'edit_file':
    case 'write_file':
      return str('path') ?? '';
    case 'apply_patch': {
      const files = [...(str('patch') ?? '').matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1].trim());
      return files.length ? files.join(', ') : '';
    }
    case 'run_command': {
      const cmd = str('command') ?? '';
      const extra = [str('cwd') && str('cwd') !== '.' ? `(in ${str('cwd')})` : '', i.background ? '(background)' : ''].filter(Boolean);
      return [cmd, ...extra].join(' ');
    }
    case 'task_output':
    case 'task_kill':
      return str('id') ?? '';
    case 'task_list':
      return '';
    case 'todo_write':
      return Array.isArray(i.items) ? `${i.items.length} items` : '';
    case 'todo_read':
      return '';
    default: {
      const json = JSON.stringify(input ?? {});
      return json === '{}' ? '' : json.length > 160 ? `${json.slice(0, 160)}…` : json;
    }
  }
}
