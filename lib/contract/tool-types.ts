/**
 * The input and output of every registered tool, as the page's message type needs them.
 *
 * The contract imports nothing else of Clamp, so it cannot list the tools itself: the registry's
 * tool list (lib/dispatch/all-tools.ts) fills ClampTools in by declaration merging, from the very
 * tuple it registers. Type-only: nothing here exists at run time.
 */
import type { AnyTool, ToolInputOf, ToolMetaOf, ToolResult } from './types';

/** Every registered tool by name; filled in by lib/dispatch/all-tools.ts. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ClampTools {}

/** A list of tools as the AI SDK's UI tool map: name → { input, output: ToolResult<its meta> }. */
export type UIToolsOf<T extends readonly AnyTool[]> = {
  [D in T[number] as D['name']]: { input: ToolInputOf<D>; output: ToolResult<ToolMetaOf<D>> };
};

/** ClampTools as a plain object type (the AI SDK's UITools wants one; an interface has no index signature). */
export type ClampUITools = { [K in keyof ClampTools]: ClampTools[K] };

/** The name of a registered tool. */
export type ToolName = keyof ClampTools & string;
/** A registered tool's input. */
export type ToolInput<K extends ToolName> = ClampTools[K] extends { input: infer I } ? I : never;
/** A registered tool's result, its meta typed. */
export type ToolResultOf<K extends ToolName> = ClampTools[K] extends { output: infer O } ? O : never;
