import { openApiDocument } from '@/lib/server/openapi';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The OpenAPI 3.1 document of these routes, built from their zod schemas. */
export const GET = route({}, () => openApiDocument());
