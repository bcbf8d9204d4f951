/** The settings dialog's field and button styles (shared by its sections). */
export const inputCls =
  'w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-950';
export const labelCls = 'block text-xs font-medium text-zinc-600 dark:text-zinc-400';
export const helpCls = 'mt-0.5 block font-normal text-zinc-500';
export const btnCls = 'rounded border px-3 py-1 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50';
export const btnPlainCls = `${btnCls} border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100`;
