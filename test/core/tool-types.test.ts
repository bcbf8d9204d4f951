/**
 * Type-level tests: compiled by `npm run typecheck` (each @ts-expect-error must meet an error, so a
 * type that loosens fails the typecheck), and checked again by vitest's expectTypeOf.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { ClampMessage, TodoItem } from '../../lib/contract/protocol';
import type { ToolName, ToolResultOf } from '../../lib/contract/tool-types';
import { defineTool, type ToolOutput, type ToolResult, type Truncation } from '../../lib/contract/types';
import { ALL_TOOLS } from '../../lib/dispatch/all-tools';
import type { RunCommandMeta } from '../../lib/tools/commands/run-command';
import type { ReadFileMeta } from '../../lib/tools/read-file/read-file';
import type { CardResult, ToolPart } from '../../components/tool-card';

type Part = ClampMessage['parts'][number];
type Done<N extends string> = Extract<Part, { type: `tool-${N}`; state: 'output-available' }>;

describe('the page knows every tool by type', () => {
  it('gives each tool part its typed input and ToolResult<its meta>', () => {
    expectTypeOf<Done<'read_file'>['output']>().toEqualTypeOf<ToolResult<ReadFileMeta>>();
    expectTypeOf<Done<'run_command'>['output']>().toEqualTypeOf<ToolResult<RunCommandMeta>>();
    expectTypeOf<Done<'read_file'>['input']>().toEqualTypeOf<{ path: string; offset?: number; limit?: number }>();
    expectTypeOf<NonNullable<Done<'run_command'>['output']['meta']>['exitCode']>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<NonNullable<Done<'todo_write'>['output']['meta']>['todos']>().toEqualTypeOf<TodoItem[] | undefined>();
    // what dispatch and the loop add is typed on every tool
    expectTypeOf<NonNullable<Done<'glob'>['output']['meta']>['durationMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<NonNullable<Done<'grep'>['output']['meta']>['toolTruncation']>().toEqualTypeOf<Truncation | undefined>();

    const exitOf = (p: Done<'run_command'>) => p.output.meta?.exitCode;
    const pathOf = (p: Done<'read_file'>) => p.input.path;
    // @ts-expect-error run_command's meta has no such field (a typo does not compile)
    const typo = (p: Done<'run_command'>) => p.output.meta?.exitcode;
    // @ts-expect-error read_file's meta has no exit code
    const wrongTool = (p: Done<'read_file'>) => p.output.meta?.exitCode;
    // @ts-expect-error read_file's input has no command
    const wrongInput = (p: Done<'read_file'>) => p.input.command;
    expect([exitOf, pathOf, typo, wrongTool, wrongInput]).toHaveLength(5);
  });

  it('names exactly the registered tools', () => {
    expectTypeOf<ToolName>().toEqualTypeOf<(typeof ALL_TOOLS)[number]['name']>();
    expectTypeOf<Extract<Part, { type: 'tool-no_such_tool' }>>().toBeNever();
    expectTypeOf<ToolResultOf<'git_commit'>['meta']>().not.toBeAny();
  });

  it('lets the generic card read the meta kinds of any tool without a cast', () => {
    // every registered tool's result is a CardResult: its kinds (diff, exit code …) have the kinds' types
    const asCard = (p: Extract<ToolPart, { state: 'output-available'; type: `tool-${ToolName}` }>): CardResult => p.output;
    expect(asCard).toBeTypeOf('function');
  });

  it('refuses a tool whose meta gives a kind the wrong type', () => {
    const schema = z.object({});
    const base = { effect: 'read' as const, schema, describe: () => '', summary: () => '' };
    // @ts-expect-error exitCode is a meta kind: it must be number | null, not a string
    const bad = defineTool({ ...base, name: 'bad_meta', run: async (): Promise<ToolOutput<{ exitCode: string }>> => ({ output: '' }) });
    const good = defineTool({ ...base, name: 'good_meta', run: async (): Promise<ToolOutput<{ exitCode: number; mine: string }>> => ({ output: '' }) });
    expectTypeOf(good.name).toEqualTypeOf<'good_meta'>();
    expect([bad, good]).toHaveLength(2);
  });
});
