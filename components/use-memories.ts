'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DeletedAnswer, MemoryListAnswer } from '@/lib/contract/rest';
import { fetchJson } from './api';

const memoriesKey = (q: string) => ['memories', q] as const;

/** The workspace's memories matching `q` (all of them when it is empty), and their deletion (every list is read again). */
export function useMemories(q: string) {
  const qc = useQueryClient();
  const list = useQuery({
    queryKey: memoriesKey(q),
    queryFn: () => fetchJson<MemoryListAnswer>(`/api/memories${q ? `?q=${encodeURIComponent(q)}` : ''}`),
  });
  const del = useMutation({
    mutationFn: (id: number) => fetchJson<DeletedAnswer<number>>(`/api/memories/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['memories'] }),
  });
  return { list, del };
}
