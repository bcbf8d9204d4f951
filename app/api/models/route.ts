import type { ModelChoicesAnswer } from '@/lib/contract/rest';
import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { listModelChoices } from '@/lib/server/session-model';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The models the header's picker offers: the default, and each configured provider's list. */
export async function GET(): Promise<Response> {
  try {
    return json<ModelChoicesAnswer>(await listModelChoices(serverConfig()));
  } catch (err) {
    return errorResponse(err);
  }
}
