import { errorResponse, json, parseJson, serverConfig } from '@/lib/server/http';
import { checkModel, modelCheckSchema } from '@/lib/server/model-check';
import { BUDGET } from '@/lib/contract/budget';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Test model settings before (or without) saving them: reach the provider, list its models (ModelCheck). */
export async function POST(req: Request): Promise<Response> {
  try {
    const body = await parseJson(req, modelCheckSchema, BUDGET.API_BODY_MAX_BYTES);
    return json(await checkModel(body, { dataDir: serverConfig().dataDir }));
  } catch (err) {
    return errorResponse(err);
  }
}
