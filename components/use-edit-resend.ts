'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { checkpointKeys, fetchRewindPreview } from './checkpoint-api';
import { useRewind } from './rewind-context';
import { useRewindRun } from './use-rewind-run';

/**
 * Resend an earlier message, edited, after a rewind: the preview says which files would go back ("also
 * restore code" defaults on once it shows any); tasks still running are named and stopped on the second try.
 */
export function useEditResend(messageId: string, onDone: () => void) {
  const { sessionId, resend, blocked } = useRewind();
  // "also restore code" defaults on once the preview shows files that would change
  const [code, setCode] = useState<boolean | null>(null);
  const preview = useQuery({ queryKey: checkpointKeys.preview(sessionId, messageId), queryFn: () => fetchRewindPreview(sessionId, messageId), staleTime: 0, gcTime: 0 });
  const files = preview.data?.files.length ?? 0;
  const restoreCode = code ?? files > 0;
  const { running, error, pending, go: run } = useRewindRun(preview.data?.runningTasks);

  const go = async (text: string) => {
    const t = text.trim();
    if (!t || pending) return;
    await run((stop) => resend(messageId, t, { code: restoreCode, ...stop }), onDone);
  };
  return { preview, files, restoreCode, setCode, running, error, pending, blocked, go };
}
