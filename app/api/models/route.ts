import type { ModelCapabilityAnswer, ModelChoicesAnswer } from '@/lib/contract/rest';
import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { listModelChoices, modelCapability } from '@/lib/server/session-model';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The models the header's picker offers (the default, each configured provider's list); ?spec=provider:model: that model's capability. */
export async function GET(req: Request): Promise<Response> {
  try {
    const spec = new URL(req.url).searchParams.get('spec');
    if (spec) return json<ModelCapabilityAnswer>(modelCapability(serverConfig(), spec.slice(0, 4200)));
    return json<ModelChoicesAnswer>(await listModelChoices(serverConfig()));
  } catch (err) {
    return errorResponse(err);
  }
}
