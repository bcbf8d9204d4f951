'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { McpView } from '@/lib/contract/mcp-rest';
import { fetchJson } from './api';

const MCP_KEY = ['mcp'] as const;

/** The MCP servers as the settings page shows them; read again every second while one starts or has crashed. */
export function useMcp() {
  return useQuery({ queryKey: MCP_KEY, queryFn: () => fetchJson<McpView>('/api/mcp'), refetchInterval: (q) => (q.state.data?.servers.some((s) => s.status === 'starting' || s.status === 'crashed') ? 1000 : false) });
}

/** A change to the MCP servers; the view it answers with replaces the shown one. */
export function useMcpMutation<V>(fn: (v: V) => Promise<McpView>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: (view) => qc.setQueryData(MCP_KEY, view) });
}
