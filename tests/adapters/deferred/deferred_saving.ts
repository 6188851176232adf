/**
 * What deferring saved, read from the bodies a loopback server accepted
 * (not the recording `report()` reads): per body, the deferred
 * definitions (`defer_loading: true`, at the top level or in a namespace)
 * that its history has not loaded (a `tool_reference`, a function in a
 * `tool_search_output`), counted with `count`, summed over the bodies.
 */
export function savingOfBodies(
  bodies: readonly Record<string, unknown>[],
  count: (text: string) => number,
): { tools: number; found: number; tokensNotSent: number } {
  const tools = new Set<string>();
  const found = new Set<string>();
  let tokensNotSent = 0;
  for (const body of bodies) {
    const definitions: Record<string, unknown>[] = [];
    for (const tool of body.tools as Record<string, unknown>[]) {
      const inner = tool.type === "namespace"
        ? tool.tools as Record<string, unknown>[]
        : [tool];
      for (const fn of inner) {
        if (fn.defer_loading === true) definitions.push(fn);
      }
    }
    const history = JSON.stringify(body.messages ?? body.input);
    const loadedHere = new Set<string>();
    for (const match of history.matchAll(/"tool_name":"([^"]+)"/g)) {
      loadedHere.add(match[1]);
    }
    for (const item of (body.input ?? []) as Record<string, unknown>[]) {
      if (item.type !== "tool_search_output") continue;
      for (const group of item.tools as Record<string, unknown>[]) {
        for (const fn of group.tools as { name: string }[]) {
          loadedHere.add(fn.name);
        }
      }
    }
    for (const fn of definitions) {
      tools.add(fn.name as string);
      if (loadedHere.has(fn.name as string)) found.add(fn.name as string);
      else tokensNotSent += count(JSON.stringify(fn));
    }
  }
  return { tools: tools.size, found: found.size, tokensNotSent };
}
