import { createRequire } from 'node:module';

type Count = (text: string) => number;
let count: Count | null = null;

/**
 * o200k_base tokens of a text. The tokenizer is loaded at the first count (its tables take a few hundred
 * milliseconds to build), so a process that counts nothing before its first model request does not wait
 * for it; the context keeper and the tool list avoid counting where an upper bound already decides.
 */
export function countTokens(text: string): number {
  if (!count) count = (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: Count }).countTokens;
  return count(text);
}

/** Whether the tokenizer is loaded (a count now costs only the count). */
export function tokenizerLoaded(): boolean {
  return count !== null;
}
