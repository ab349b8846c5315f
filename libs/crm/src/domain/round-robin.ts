// The next candidate after `last` in a stable order, wrapping around, never `current` (the deal's
// owner). Undefined when nobody else is available.
export function nextInRotation(candidates: string[], last: string | null, current: string | null): string | undefined {
  const eligible = candidates.filter((id) => id !== current);
  if (eligible.length === 0) return undefined;
  const after = last === null ? undefined : eligible.find((id) => id > last);
  return after ?? eligible[0];
}
