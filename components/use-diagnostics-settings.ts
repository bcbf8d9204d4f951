'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DiagnosticsSettingsUpdate, DiagnosticsSettingsView } from '@/lib/contract/diagnostics';
import { fetchJson } from './api';

const KEY = ['diagnostics-settings'] as const;
const URL = '/api/settings/diagnostics';

/** The settings' diagnostics view (read again every few seconds: servers start and stop) and the switch's save. */
export function useDiagnosticsSettings() {
  const qc = useQueryClient();
  const view = useQuery({ queryKey: KEY, queryFn: () => fetchJson<DiagnosticsSettingsView>(URL), refetchInterval: 3000 });
  const save = useMutation({
    mutationFn: (body: DiagnosticsSettingsUpdate) => fetchJson<DiagnosticsSettingsView>(URL, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    onSuccess: (v) => qc.setQueryData(KEY, v),
  });
  return { view, save };
}
