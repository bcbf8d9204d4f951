import { BUDGET } from '@/lib/contract/budget';
import { fileRulesBody, type FileRulesView } from '@/lib/contract/permission-rest';
import { fileRulesOf, saveFileRules } from '@/lib/server/file-rules';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The settings files' permission rules, each with its file and state, and whether Clamp reads them (FileRulesView). */
export const GET = route({}, (c): FileRulesView => fileRulesOf(c.cfg));

/** Turn reading the settings files' permission rules on or off, or approve a workspace allow rule (FileRulesBody). */
export const PUT = route({ body: fileRulesBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): FileRulesView => saveFileRules(c.cfg, c.body));
