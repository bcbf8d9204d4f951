/** The tool CLI's usage and flags: their own module, so `clamp-tool --help` loads nothing else. */
export const TOOL_CLI_FLAGS: readonly string[] = ['--approve', '--help', '--list', '--json'];

export const TOOL_CLI_USAGE = `Usage: npm run tool -- <tool-name> ['<json args>'] [--approve]
Runs one Clamp tool through dispatch and prints its ToolResult as one JSON object.
  --approve   approve a call that would otherwise need a person (status "approval-required")
  --list      a table of the tools: name, side-effect class, whether this mode offers it, what it does
  --json      with --list: the same as one JSON array, for scripts
Environment: CLAMP_WORKSPACE (default: the current directory), CLAMP_MODE, CLAMP_DATA_DIR (default ~/.clamp:
spilled outputs, task logs and memories are written there; set it to a temp folder to keep ~/.clamp clean).
Exit code: 0 whatever the tool's status; 2 for misuse of this command.`;
