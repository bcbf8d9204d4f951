'use client';

import { useEffect, useState } from 'react';

/** A clock that ticks once a second while active (for running tasks' elapsed time). */
export function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}
