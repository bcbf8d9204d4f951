/** Known context windows, in tokens, by model-id prefix (longest prefix wins). An override in settings beats it. */
const KNOWN_WINDOWS_TOKENS: ReadonlyArray<[string, number]> = [
  ['claude-opus-4', 200_000],
  ['claude-sonnet-4', 200_000],
  ['claude-haiku-4', 200_000],
  ['claude-3-7', 200_000],
  ['claude-3-5', 200_000],
  ['claude', 200_000],
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['o4', 200_000],
  ['o3', 200_000],
  ['qwen3-coder', 262_144],
  ['qwen2.5-coder', 32_768],
  ['qwen3', 40_960],
  ['llama3.1', 131_072],
  ['llama3', 8192],
  ['deepseek', 131_072],
  ['mistral', 32_768],
  ['gemma3', 131_072],
  ['gpt-oss', 131_072],
];

/** When a model is unknown: a conservative window, so budgets err on the small side. */
export const DEFAULT_WINDOW_TOKENS = 32_768;

/** The context window for a model id, or the override when one is set. */
export function contextWindowFor(modelId: string | null | undefined, override?: number | null): number {
  if (override && override > 0) return override;
  const id = (modelId ?? '').toLowerCase().replace(/^.*\//, '');
  let best: [string, number] | undefined;
  for (const entry of KNOWN_WINDOWS_TOKENS) {
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best ? best[1] : DEFAULT_WINDOW_TOKENS;
}
