import { errorResponse, json, parseJson, serverConfig } from '@/lib/server/http';
import { checkModel } from '@/lib/server/model-check';
import { BUDGET } from '@/lib/contract/budget';
import type { ModelCheck } from '@/lib/contract/protocol';
import { modelCheckBody } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Test model settings before (or without) saving them: reach the provider, list its models (ModelCheck). */
export async function POST(req: Request): Promise<Response> {
  try {
    const body = await parseJson(req, modelCheckBody, BUDGET.API_BODY_MAX_BYTES);
    return json<ModelCheck>(await checkModel(body, { dataDir: serverConfig().dataDir }));
  } catch (err) {
    return errorResponse(err);
  }
}
