import { errorResponse, json } from '@/lib/server/http';
import { openApiDocument } from '@/lib/server/openapi';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The OpenAPI 3.1 document of these routes, built from their zod schemas. */
export async function GET(): Promise<Response> {
  try {
    return json(openApiDocument());
  } catch (err) {
    return errorResponse(err);
  }
}
