import type { ModelCapabilityAnswer, ModelChoicesAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { listModelChoices, modelCapability } from '@/lib/server/session-model';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The models the header's picker offers (the default, each configured provider's list); ?spec=provider:model: that model's capability. */
export const GET = route({}, (c): ModelCapabilityAnswer | Promise<ModelChoicesAnswer> => {
  const spec = c.url.searchParams.get('spec');
  return spec ? modelCapability(c.cfg, spec.slice(0, 4200)) : listModelChoices(c.cfg);
});
