import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { supabase } from '../api/supabase';

// Live updates (docs/realtime.md): one supabase-js channel with postgres_changes on messages and
// conversations; any change the member may read refreshes the inbox's queries. While the channel
// is joined the queries poll only as a slow safety net; otherwise (not joined yet, refused, the
// socket down) every POLL_MS, so the page keeps up either way.
export const POLL_MS = 3_000;
const SAFETY_NET_MS = 30_000;

let joined = false;
const listeners = new Set<() => void>();
function setJoined(value: boolean) {
  if (joined === value) return;
  joined = value;
  listeners.forEach((listener) => listener());
}
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
};

export const useLive = () => useSyncExternalStore(subscribe, () => joined);
export const usePollInterval = () => (useLive() ? SAFETY_NET_MS : POLL_MS);

export function useInboxLive(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Changes come in bursts (a message and its conversation): one refresh for each burst.
    const refresh = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void queryClient.invalidateQueries({ queryKey: ['inbox'] });
      }, 150);
    };
    const channel = supabase
      .channel('console-inbox')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'messages' }, refresh)
      .on('postgres_changes', { event: '*', schema: 'public', table: 'conversations' }, refresh)
      .subscribe((status) => {
        setJoined(status === 'SUBSCRIBED');
        if (status === 'SUBSCRIBED') refresh();
      });
    return () => {
      if (timer) clearTimeout(timer);
      setJoined(false);
      void supabase.removeChannel(channel);
    };
  }, [queryClient]);
}
