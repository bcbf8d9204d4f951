import { BUDGET } from '../contract/budget';
import type { DiagnosticsSettingsUpdate, DiagnosticsSettingsView } from '../contract/diagnostics';
import type { NotifySettings } from '../contract/notify';
import type { SettingsView } from '../contract/protocol';
import type { MemoryListAnswer, RuleListAnswer, SettingsUpdate, SkillListAnswer } from '../contract/rest';
import { openDb } from '../store/db';
import { deleteMemory, listMemories, searchMemories } from '../store/memories';
import { deleteRule, listRules } from '../store/rules';
import { getNotifySettings, setNotifySettings, settingsView, updateSettings } from '../store/settings';
import { listSkills } from '../tools/skills/skills';
import { fileCommandScan } from './file-commands';
import { scanAgents } from '../tools/agents/agent-files';
import { diagnosticsSettingsView, updateDiagnosticsSettings } from './diagnostics';
import { HttpError, type ServerConfig } from './http';

/**
 * What the person keeps, as the page's settings and lists read and change it: the settings (model, keys,
 * sandbox; diagnostics after edits), the workspace's saved rules and memories, and the skills on disk.
 */

/** The model settings and which API keys are set; never the keys themselves. */
export function settingsOf(cfg: ServerConfig): SettingsView {
  return settingsView(openDb(cfg.dataDir), cfg.dataDir, cfg.mode);
}

/** Save any subset of the settings and keys (a key set to null is removed): the new view. */
export function saveSettings(cfg: ServerConfig, body: SettingsUpdate): SettingsView {
  return updateSettings(openDb(cfg.dataDir), cfg.dataDir, body, cfg.mode);
}

/** GET /api/settings/notifications: on unless turned off (the same in every browser). */
export function notifySettingsOf(cfg: ServerConfig): NotifySettings {
  return getNotifySettings(openDb(cfg.dataDir));
}

/** PUT /api/settings/notifications: turn notifications on or off. */
export function saveNotifySettings(cfg: ServerConfig, body: NotifySettings): NotifySettings {
  return setNotifySettings(openDb(cfg.dataDir), body);
}

/** Diagnostics after edits: on or off (and whether CLAMP_DIAGNOSTICS decides), and the language servers' states. */
export function diagnosticsSettingsOf(cfg: ServerConfig): DiagnosticsSettingsView {
  return diagnosticsSettingsView(openDb(cfg.dataDir), cfg.workspace, cfg.dataDir);
}

/** Turn diagnostics after edits on or off; off stops the running language servers. */
export function saveDiagnosticsSettings(cfg: ServerConfig, body: DiagnosticsSettingsUpdate): Promise<DiagnosticsSettingsView> {
  return updateDiagnosticsSettings(openDb(cfg.dataDir), cfg.workspace, cfg.dataDir, body);
}

/** The workspace's saved ("always") rules, oldest first. */
export function ruleList(cfg: ServerConfig): RuleListAnswer {
  return { rules: listRules(openDb(cfg.dataDir), cfg.workspace) };
}

/** Remove a rule of this workspace; HttpError 404 when it has none such. */
export function removeRule(cfg: ServerConfig, id: string): void {
  if (!deleteRule(openDb(cfg.dataDir), cfg.workspace, id)) throw new HttpError(404, `Rule ${id} not found. List the rules with GET /api/rules.`);
}

/** The workspace's memories, newest first; with a query the matches, best first. At most MEMORY_LIST_MAX_ITEMS; total counts them all. */
export function memoryList(cfg: ServerConfig, query: string): MemoryListAnswer {
  const db = openDb(cfg.dataDir);
  const found = query ? searchMemories(db, cfg.workspace, query, BUDGET.MEMORY_LIST_MAX_ITEMS) : listMemories(db, cfg.workspace, BUDGET.MEMORY_LIST_MAX_ITEMS);
  return { memories: found.memories, total: found.total };
}

/** A memory's id from a route: memory ids are row numbers, so anything else is HttpError 404. */
export function memoryId(raw: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new HttpError(404, `Memory ${raw} not found.`);
  return Number(raw);
}

/** Forget a memory of this workspace; HttpError 404 when it has none such. */
export function forgetMemory(cfg: ServerConfig, id: number): void {
  if (!deleteMemory(openDb(cfg.dataDir), cfg.workspace, id)) throw new HttpError(404, `Memory ${id} not found. List the memories with GET /api/memories.`);
}

/** The workspace's and the data dir's skills and commands from files, for the composer's /<name> commands. */
export function skillList(cfg: ServerConfig): SkillListAnswer {
  const files = fileCommandScan(openDb(cfg.dataDir), cfg.workspace, cfg.dataDir);
  return {
    skills: listSkills(cfg.workspace, cfg.dataDir).map((s) => ({ name: s.name, description: s.description })),
    commands: files.commands,
    skipped: [...files.skipped, ...scanAgents(cfg.workspace, cfg.dataDir).skipped],
  };
}
