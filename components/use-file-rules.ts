'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FileRulesBody, FileRulesView } from '@/lib/contract/permission-rest';
import { fetchJson } from './api';

const FILE_RULES_KEY = ['rules', 'files'] as const;

/** The settings files' permission rules as the rules section shows them (GET /api/rules/files). */
export function useFileRules() {
  return useQuery({ queryKey: FILE_RULES_KEY, queryFn: () => fetchJson<FileRulesView>('/api/rules/files') });
}

/** Turn the files' rules on or off, or approve one (PUT /api/rules/files); the answer replaces the shown view. */
export function useFileRulesMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: FileRulesBody) => fetchJson<FileRulesView>('/api/rules/files', { method: 'PUT', body: JSON.stringify(body) }),
    onSuccess: (view) => qc.setQueryData(FILE_RULES_KEY, view),
  });
}
