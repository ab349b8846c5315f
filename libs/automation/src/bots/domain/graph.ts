import type { BotNode, Definition } from './nodes';

// What publishing checks (issue 36): every edge names a node, every node is reachable from the
// start, every cycle passes through an ask (where the bot waits for the customer), and a choice ask
// has choices. Each problem names its node and the path of what is wrong.
export interface GraphProblem {
  node_id: string | null;
  path: string;
  problem: string;
}

interface Edge {
  path: string;
  target: string | undefined;
  required: boolean;
}

// A node's outgoing edges, with the paths they are written at (relative to the node).
export function edgesOf(node: BotNode): Edge[] {
  switch (node.type) {
    case 'message':
    case 'set_field':
    case 'add_tags':
      return [{ path: 'next', target: node.next, required: true }];
    case 'webhook':
      return [
        { path: 'next', target: node.next, required: true },
        { path: 'on_error', target: node.on_error, required: false },
      ];
    case 'ask': {
      const timeout: Edge[] = node.on_timeout !== undefined ? [{ path: 'on_timeout', target: node.on_timeout, required: true }] : [];
      if (node.validate !== 'choice') return [{ path: 'next', target: node.next, required: true }, ...timeout];
      // Without choices (a problem of its own) the ask's next still counts for reachability.
      if (!node.choices?.length) return [{ path: 'next', target: node.next, required: false }, ...timeout];
      // A choice without a next of its own goes to the ask's next.
      const choices = (node.choices ?? []).map((choice, index) =>
        choice.next !== undefined
          ? { path: `choices[${index}].next`, target: choice.next, required: true }
          : { path: node.next !== undefined ? 'next' : `choices[${index}].next`, target: node.next, required: true },
      );
      return [...choices, ...timeout];
    }
    case 'branch':
      return [
        ...node.cases.map((item, index) => ({ path: `cases[${index}].next`, target: item.next, required: true })),
        { path: 'default', target: node.default, required: true },
      ];
    case 'handoff':
    case 'end':
      return [];
  }
}

export function graphProblems(definition: Definition): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const index = new Map(definition.nodes.map((node, at) => [node.id, at]));
  const pathOf = (id: string, rest: string) => `definition.nodes[${index.get(id)}].${rest}`;
  if (!index.has(definition.start)) {
    problems.push({ node_id: null, path: 'definition.start', problem: `names "${definition.start}", which is not a node` });
  }
  const reported = new Set<string>();
  for (const node of definition.nodes) {
    if (node.type === 'ask' && node.validate === 'choice' && (node.choices ?? []).length === 0) {
      problems.push({ node_id: node.id, path: pathOf(node.id, 'choices'), problem: 'a choice ask needs choices' });
    }
    for (const edge of edgesOf(node)) {
      const key = `${node.id} ${edge.path}`;
      if (reported.has(key)) continue;
      if (edge.target === undefined) {
        if (edge.required) problems.push({ node_id: node.id, path: pathOf(node.id, edge.path), problem: 'is missing: the node it goes to' });
      } else if (!index.has(edge.target)) {
        problems.push({ node_id: node.id, path: pathOf(node.id, edge.path), problem: `names "${edge.target}", which is not a node` });
      } else continue;
      reported.add(key);
    }
  }
  const targets = (node: BotNode) => edgesOf(node).flatMap((edge) => (edge.target !== undefined && index.has(edge.target) ? [edge.target] : []));
  const byId = new Map(definition.nodes.map((node) => [node.id, node]));
  // Reachable from the start.
  const reached = new Set<string>();
  const stack = index.has(definition.start) ? [definition.start] : [];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (reached.has(id)) continue;
    reached.add(id);
    stack.push(...targets(byId.get(id) as BotNode));
  }
  if (index.has(definition.start)) {
    for (const node of definition.nodes) {
      if (!reached.has(node.id))
        problems.push({ node_id: node.id, path: `definition.nodes[${index.get(node.id)}]`, problem: 'is not reachable from the start' });
    }
  }
  // Cycles the bot would run round without waiting: strongly connected components of the graph
  // without an ask's outgoing edges (the bot stops at an ask until the customer answers).
  for (const component of cyclesWithoutAsk(definition.nodes, (node) => (node.type === 'ask' ? [] : targets(node)))) {
    const loop = component.join(', ');
    for (const id of component) {
      problems.push({ node_id: id, path: `definition.nodes[${index.get(id)}]`, problem: `is on a cycle with no ask (nodes ${loop})` });
    }
  }
  return problems;
}

// Tarjan's strongly connected components, keeping those that hold a cycle (more than one node, or a
// node with an edge to itself), each in the nodes' order.
function cyclesWithoutAsk(nodes: BotNode[], next: (node: BotNode) => string[]): string[][] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const order = new Map(nodes.map((node, at) => [node.id, at]));
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let counter = 0;
  const visit = (id: string) => {
    indexOf.set(id, counter);
    low.set(id, counter);
    counter += 1;
    stack.push(id);
    onStack.add(id);
    for (const target of next(byId.get(id) as BotNode)) {
      if (!indexOf.has(target)) {
        visit(target);
        low.set(id, Math.min(low.get(id) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(id, Math.min(low.get(id) as number, indexOf.get(target) as number));
      }
    }
    if (low.get(id) === indexOf.get(id)) {
      const component: string[] = [];
      for (;;) {
        const member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
        if (member === id) break;
      }
      const selfLoop = component.length === 1 && next(byId.get(id) as BotNode).includes(id);
      if (component.length > 1 || selfLoop) found.push(component.sort((a, b) => (order.get(a) as number) - (order.get(b) as number)));
    }
  };
  for (const node of nodes) if (!indexOf.has(node.id)) visit(node.id);
  return found.sort((a, b) => (order.get(a[0]) as number) - (order.get(b[0]) as number));
}
