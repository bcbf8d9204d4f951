import type { z } from 'zod';
import { BUDGET } from './budget';

/** Turn zod issues into one line per field: what was wrong and what was expected. */
export function formatZodIssues(toolName: string, error: z.ZodError, raw?: unknown): string {
  const max = BUDGET.VALIDATION_ISSUES_MAX_LISTED;
  const lines = error.issues.slice(0, max).map((issue) => {
    const field = issue.path.length ? issue.path.map(String).join('.') : '(arguments)';
    let msg = issue.message;
    if (issue.code === 'invalid_type') {
      const received = valueAt(raw, issue.path);
      const got = received === undefined ? 'nothing (the field is missing)' : describeValue(received);
      msg = `expected ${issue.expected}, got ${got}`;
    } else if (issue.code === 'unrecognized_keys') {
      msg = `unknown field(s): ${issue.keys.join(', ')}`;
    }
    return `- \`${field}\`: ${msg}`;
  });
  const more = error.issues.length > max ? `\n- … and ${error.issues.length - max} more problems` : '';
  return `Invalid arguments for ${toolName}:\n${lines.join('\n')}${more}\nFix the arguments and call ${toolName} again.`;
}

function valueAt(raw: unknown, p: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const k of p) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > BUDGET.VALIDATION_STRING_QUOTE_MAX_CHARS ? `a string of ${v.length} characters` : `the string ${JSON.stringify(v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

/** Map a thrown Node error to a message with a next step; never a raw ENOENT. */
export function describeThrown(toolName: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const where = e?.path ? ` ${e.path}` : '';
  switch (e?.code) {
    case 'ENOENT':
      return `Not found:${where}. Check the path with list_dir or glob.`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied:${where}. Clamp cannot access it; choose another path or ask the user to fix its permissions.`;
    case 'EISDIR':
      return `Is a directory:${where}. Use list_dir to see what it contains.`;
    case 'ENOTDIR':
      return `Not a directory:${where}. Check the path with list_dir.`;
    case 'EMFILE':
    case 'ENFILE':
      return `Too many open files while running ${toolName}. Try again with a narrower path.`;
    case 'ENOSPC':
      return `The disk is full:${where}. Ask the user to free space.`;
    default: {
      const msg = err instanceof Error ? err.message : String(err);
      return `${toolName} failed: ${msg}`;
    }
  }
}
