'use client';

import { useCallback, useState } from 'react';

/** A set of strings the person toggles one at a time (the files left out of a commit). */
export function useToggleSet(): [ReadonlySet<string>, (item: string) => void] {
  const [set, setSet] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = useCallback(
    (item: string) =>
      setSet((prev) => {
        const next = new Set(prev);
        if (next.has(item)) next.delete(item);
        else next.add(item);
        return next;
      }),
    [],
  );
  return [set, toggle];
}
