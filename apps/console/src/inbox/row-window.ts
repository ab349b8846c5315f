import { type FocusEvent, type KeyboardEvent, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

// A windowed list over rows of one fixed height (the conversation list, docs/console.md): only the
// rows in the scroller's view, plus `overscan` on each side and the row holding the focus, are in
// the page. Rows are placed by the caller at `index * rowHeight` inside an element `count *
// rowHeight` high, and carry `data-index`. `settled` is the window once scrolling has rested for
// `settleMs`: what to fetch, so a fling does not ask for every page it passes.
export interface RowRange {
  first: number;
  last: number; // inclusive; below `first` when there are no rows
}

const same = (a: RowRange, b: RowRange) => a.first === b.first && a.last === b.last;
const indexOf = (target: EventTarget | null): number | null => {
  const row = target instanceof Element ? target.closest<HTMLElement>('[data-index]') : null;
  return row ? Number(row.dataset.index) : null;
};

export function useRowWindow({
  count,
  rowHeight,
  overscan = 5,
  settleMs = 120,
  resetKey,
}: {
  count: number;
  rowHeight: number;
  overscan?: number;
  settleMs?: number;
  resetKey: string;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const measure = useCallback((): RowRange => {
    const element = scroller.current;
    const top = element?.scrollTop ?? 0;
    const height = element?.clientHeight || window.innerHeight; // before the first layout: a screenful
    return {
      first: Math.max(0, Math.floor(top / rowHeight) - overscan),
      last: Math.min(count - 1, Math.ceil((top + height) / rowHeight) - 1 + overscan),
    };
  }, [count, rowHeight, overscan]);
  const [range, setRange] = useState<RowRange>(measure);
  const [settled, setSettled] = useState<RowRange>(range);
  const [focused, setFocused] = useState<number | null>(null);
  const pendingFocus = useRef<number | null>(null);
  const update = useCallback(() => setRange((previous) => (same(previous, measure()) ? previous : measure())), [measure]);

  // Other rows (a filter changed): back to the top.
  useLayoutEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
    setFocused(null);
  }, [resetKey]);
  useLayoutEffect(update, [update, resetKey]);
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const resized = new ResizeObserver(update);
    resized.observe(element);
    element.addEventListener('scroll', update, { passive: true });
    return () => {
      resized.disconnect();
      element.removeEventListener('scroll', update);
    };
  }, [update]);
  useEffect(() => {
    const timer = setTimeout(() => setSettled((previous) => (same(previous, range) ? previous : range)), settleMs);
    return () => clearTimeout(timer);
  }, [range, settleMs]);

  // Moves the focus to row `index`, scrolling it into view first (it may not be in the page yet).
  const focusRow = useCallback(
    (index: number) => {
      const element = scroller.current;
      if (!element || count === 0) return;
      const target = Math.min(count - 1, Math.max(0, index));
      const top = target * rowHeight;
      if (top < element.scrollTop) element.scrollTop = top;
      else if (top + rowHeight > element.scrollTop + element.clientHeight) element.scrollTop = top + rowHeight - element.clientHeight;
      pendingFocus.current = target;
      setFocused(target);
      update();
    },
    [count, rowHeight, update],
  );
  // After the render that put the row in the page: its button, or the row itself while it loads
  // (the button then takes the focus once it is there).
  useEffect(() => {
    const index = pendingFocus.current;
    const row = index === null ? null : scroller.current?.querySelector<HTMLElement>(`[data-index="${index}"]`);
    if (!row) return;
    const control = row.querySelector<HTMLElement>('button');
    (control ?? row).focus(); // the list is in view already; this brings the list itself into the window
    if (control) pendingFocus.current = null;
  });

  const listProps = {
    onKeyDown(event: KeyboardEvent) {
      const index = indexOf(event.target);
      if (index === null || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 0) / rowHeight) - 1);
      const to = { ArrowDown: index + 1, ArrowUp: index - 1, PageDown: index + page, PageUp: index - page, Home: 0, End: count - 1 }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      focusRow(to);
    },
    onFocus(event: FocusEvent) {
      setFocused(indexOf(event.target));
    },
    onBlur(event: FocusEvent) {
      if (event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget)) return;
      setFocused(null);
      pendingFocus.current = null; // the focus left the list: a row loading later does not take it back
    },
  };

  // The rows to render: the window, and the focused row wherever it is, so scrolling never takes
  // the focus away.
  const indexes: number[] = [];
  for (let index = range.first; index <= range.last; index++) indexes.push(index);
  if (focused !== null && focused < count && (focused < range.first || focused > range.last)) {
    indexes.push(focused);
    indexes.sort((a, b) => a - b); // the page's order is the tab order
  }
  return { scroller, range, settled, indexes, listProps };
}
