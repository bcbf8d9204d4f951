'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { HooksBody, HooksView } from '@/lib/contract/hooks-rest';
import { fetchJson } from './api';

const HOOKS_KEY = ['hooks'] as const;

/** The hooks as the settings page shows them (GET /api/hooks). */
export function useHooks() {
  return useQuery({ queryKey: HOOKS_KEY, queryFn: () => fetchJson<HooksView>('/api/hooks') });
}

/** A change to the hooks (PUT /api/hooks); the view it answers with replaces the shown one. */
export function useHooksMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: HooksBody) => fetchJson<HooksView>('/api/hooks', { method: 'PUT', body: JSON.stringify(body) }),
    onSuccess: (view) => qc.setQueryData(HOOKS_KEY, view),
  });
}
