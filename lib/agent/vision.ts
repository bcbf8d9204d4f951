import type { ImageInput } from '../contract/protocol';
import { providerRow } from '../contract/providers';
import { lookupCatalogue } from './context/catalogue';

/**
 * Model families known to take images, for models the catalogue does not list (local servers' names):
 * conservative — a model not matched here is told no, and CLAMP_IMAGE_INPUT=1 (or the settings page)
 * says otherwise.
 */
const KNOWN_VISION = /(gpt-4o|gpt-4\.1|gpt-5|claude-(3|sonnet|opus|haiku)|gemini|llava|bakllava|[-_.]vl\b|[-_]vl[-_:.]|vision|pixtral|gemma-?3|minicpm-v|moondream|qwen2\.5-?vl|qwen3-?vl|llama-?4|internvl|glm-4\.?\dv)/i;

/**
 * Whether a model takes images as file parts, and how that was decided: the override (CLAMP_IMAGE_INPUT,
 * else the settings page's choice), then the models.dev catalogue's input modalities, then the known
 * vision families above. A provider whose table row says so (a script) takes none. The one place this is
 * decided; ModelStatus carries it.
 */
export function imageInputFor(provider: string | null, model: string | null, override?: 'yes' | 'no' | 'auto' | null, env: Readonly<Record<string, string | undefined>> = process.env): ImageInput {
  const e = env.CLAMP_IMAGE_INPUT?.trim();
  if (e === '1' || e === '0') return { accepted: e === '1', source: `CLAMP_IMAGE_INPUT=${e}` };
  if (override === 'yes' || override === 'no') return { accepted: override === 'yes', source: 'the settings page' };
  const none = providerRow(provider)?.noImages;
  if (!provider || !model || none) return { accepted: false, source: none ?? 'no model' };
  const entry = lookupCatalogue(provider, model);
  if (entry?.inputModalities) {
    return { accepted: entry.inputModalities.includes('image'), source: `models.dev catalogue (${entry.id}): input ${entry.inputModalities.join(', ')}` };
  }
  if (KNOWN_VISION.test(model)) return { accepted: true, source: 'a known vision model family' };
  return { accepted: false, source: 'not a known vision model (set CLAMP_IMAGE_INPUT=1 if it takes images)' };
}
