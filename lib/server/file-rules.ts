import type { FileRulesBody, FileRulesView } from '../contract/permission-rest';
import { openDb } from '../store/db';
import { fileRulesView, setFileRuleApproval, setFileRulesOn } from '../hooks/permission-files';
import { HttpError, type ServerConfig } from './http';

/** The rules page's side of the settings files' permission rules (GET/PUT /api/rules/files). */

/** The rules page's list of the files' rules, the switch and the files read. */
export function fileRulesOf(cfg: ServerConfig): FileRulesView {
  return fileRulesView(openDb(cfg.dataDir), cfg.workspace, cfg.dataDir);
}

/** Turn reading the files on or off, or approve one workspace allow rule (HttpError 404 when no such rule is there). */
export function saveFileRules(cfg: ServerConfig, body: FileRulesBody): FileRulesView {
  const db = openDb(cfg.dataDir);
  if (body.approve) {
    const view = fileRulesView(db, cfg.workspace, cfg.dataDir);
    if (!view.rules.some((r) => r.hash === body.approve!.hash)) throw new HttpError(404, `No allow rule of this workspace's settings files has the hash ${body.approve.hash}. Reload the rules and try again.`);
    setFileRuleApproval(db, cfg.workspace, body.approve.hash, body.approve.approved);
  }
  if (body.on !== undefined) setFileRulesOn(db, body.on);
  return fileRulesView(db, cfg.workspace, cfg.dataDir);
}
