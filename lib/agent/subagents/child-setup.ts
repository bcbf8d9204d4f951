import { createRegistry, type Registry } from '../../dispatch/registry';
import { listNamesTool } from '../../dispatch/tool-limit';
import type { Budget } from '../../contract/budget';
import type { FileAgent, SubagentType } from '../../contract/subagents';
import { formatBytes } from '../../contract/text';
import { traitsOf } from '../../contract/types';
import type { AgentHost, ChildHost } from '../host';

/**
 * The child's tools: those of the turn's registry (MCP tools included) whose traits give them to its
 * type (explore: read tools only, and the registry refuses an explore trait on any other). An agent type
 * from a file keeps, of those, only the tools its `tools` line names (listNamesTool: by Clamp's name, by the name the
 * tool gives itself for Claude Code's files — traits.hookAs: Read, Bash, Edit … — or an MCP server's prefix).
 */
export function childRegistry(reg: Registry, type: SubagentType, agent?: FileAgent): Registry {
  const named = (t: Registry[string]) => !agent?.tools || listNamesTool(agent.tools, t);
  return createRegistry(Object.values(reg).filter((t) => traitsOf(t).subagents.includes(type) && named(t)));
}

/** The child's own system prompt section: who it is, who reads its answer, and how to end; a file's agent then its own prompt. */
export function subagentSection(type: SubagentType, budget: Budget, agent?: FileAgent): string {
  const what = agent
    ? `You are the "${agent.name}" agent. You have only these tools: ${agent.tools ? agent.tools.join(', ') : "the parent's"}, under the parent's permission mode, rules and approvals.`
    : type === 'explore'
      ? 'You have the read-only tools only: you cannot change files or run commands. Search and read widely; run independent reads in parallel.'
      : "You have the parent's tools under the same permission mode, rules and approvals: the user approves your commands and file changes as they would the parent's.";
  return [
    'You are a subagent of Clamp. A parent agent handed you one self-contained task; the user watches your calls, but only your final message reaches the parent.',
    what,
    `Your final message is your report: the parent sees nothing else of your work (none of your tool output), and it is cut past ${formatBytes(budget.SUBAGENT_REPORT_MAX_BYTES)}. Make it complete and concrete: what you found, with file paths and line numbers, what you changed, what you checked and did not find, and what remains uncertain.`,
    `You have at most ${budget.SUBAGENT_MAX_STEPS} steps. Nobody answers questions here: when something is ambiguous, decide, and say in the report what you assumed.`,
    ...(agent ? [`Your instructions (${agent.name}):\n\n${agent.prompt}`] : []),
  ].join('\n');
}

/** A child kept in memory only (a host that stores no sessions): its own session id, the parent's mode, rules and approvals. */
export function memoryChild(parent: AgentHost, parentCallId: string): ChildHost {
  return { host: { ...parent, sessionId: `${parent.sessionId}.${parentCallId}`, spawnChild: undefined }, save: () => undefined };
}
