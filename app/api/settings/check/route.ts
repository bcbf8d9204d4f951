import { BUDGET } from '@/lib/contract/budget';
import type { ModelCheck } from '@/lib/contract/protocol';
import { modelCheckBody } from '@/lib/contract/rest';
import { checkModel } from '@/lib/server/model-check';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Test model settings before (or without) saving them: reach the provider, list its models (ModelCheck). */
export const POST = route({ body: modelCheckBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<ModelCheck> => checkModel(c.body, { dataDir: c.cfg.dataDir }));
