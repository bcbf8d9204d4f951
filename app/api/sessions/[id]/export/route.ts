import { route } from '@/lib/server/route';
import { exportDownload } from '@/lib/server/sessions';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** ?format=json (the default: every stored message, importable) or ?format=md (for people); sent as a download. */
export const GET = route({ ids: { id: 'Session' } }, (c) => exportDownload(c.cfg, c.ids.id, c.url.searchParams.get('format') ?? 'json'));
