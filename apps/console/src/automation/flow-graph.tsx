import { type BotFlow, edgesOf } from './bots.api';

const NODE_WIDTH = 150;
const NODE_HEIGHT = 44;
const COLUMN = 230;
const ROW = 66;

// The flow's graph, laid out in columns by distance from the start (nodes the start does not reach
// in a last column). The definition has no place for positions (the API refuses unknown keys), so
// the layout is computed; nodes are edited in the list beside it, which is the keyboard's path.
// A click on a node takes the focus to its form.
export function FlowGraph({ definition, problems, onSelect }: { definition: BotFlow['definition']; problems: Set<string>; onSelect: (id: string) => void }) {
  const byId = new Map(definition.nodes.map((node) => [node.id, node]));
  const depth = new Map<string, number>();
  const queue = byId.has(definition.start) ? [definition.start] : [];
  if (queue.length) depth.set(definition.start, 0);
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const edge of edgesOf(byId.get(id)!)) {
      if (byId.has(edge.target) && !depth.has(edge.target)) {
        depth.set(edge.target, depth.get(id)! + 1);
        queue.push(edge.target);
      }
    }
  }
  const lastColumn = Math.max(-1, ...depth.values()) + 1;
  const rows = new Map<number, number>();
  const place = new Map<string, { x: number; y: number }>();
  for (const node of definition.nodes) {
    const column = depth.get(node.id) ?? lastColumn;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    place.set(node.id, { x: 10 + column * COLUMN, y: 10 + row * ROW });
  }
  const width = Math.max(NODE_WIDTH + 20, ...[...place.values()].map((point) => point.x + NODE_WIDTH + 10));
  const height = Math.max(NODE_HEIGHT + 20, ...[...place.values()].map((point) => point.y + NODE_HEIGHT + 10));
  const unreachable = definition.nodes.filter((node) => !depth.has(node.id)).length;
  return (
    <div className="flow-graph" tabIndex={0} role="region" aria-label="Flow graph">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        role="img"
        aria-label={graphLabel(definition.nodes.length, definition.start, unreachable, problems.size)}
      >
        <defs>
          <marker id="flow-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" className="flow-arrow" />
          </marker>
        </defs>
        {[...edgeGroups(definition).values()].map(({ from: source, target, labels }) => {
          const from = place.get(source)!;
          const to = place.get(target);
          if (!to) return null;
          const x1 = from.x + NODE_WIDTH;
          const y1 = from.y + NODE_HEIGHT / 2;
          const x2 = to.x;
          const y2 = to.y + NODE_HEIGHT / 2;
          // Back edges (to a node at or before this column) curve below the nodes.
          const back = x2 <= from.x;
          const d = back
            ? `M${x1},${y1} C${x1 + 40},${y1 + 70} ${x2 - 40},${y2 + 70} ${x2},${y2}`
            : `M${x1},${y1} C${x1 + 30},${y1} ${x2 - 30},${y2} ${x2},${y2}`;
          const label = labels.filter(Boolean).join(', ');
          return (
            <g key={`${source}-${target}`} className="flow-edge">
              <path d={d} markerEnd="url(#flow-arrow)" />
              {label ? (
                <text x={(x1 + x2) / 2} y={(y1 + y2) / 2 - 6 + (back ? 50 : 0)} textAnchor="middle">
                  {label.length > 22 ? `${label.slice(0, 21)}…` : label}
                </text>
              ) : null}
            </g>
          );
        })}
        {definition.nodes.map((node) => {
          const point = place.get(node.id)!;
          const classes = [
            'flow-node',
            problems.has(node.id) ? 'problem' : '',
            node.id === definition.start ? 'start' : '',
            depth.has(node.id) ? '' : 'unreached',
          ];
          return (
            <g
              key={node.id}
              className={classes.filter(Boolean).join(' ')}
              data-node={node.id}
              transform={`translate(${point.x},${point.y})`}
              onClick={() => onSelect(node.id)}
            >
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={6} />
              <text x={8} y={18}>
                {node.id.length > 20 ? `${node.id.slice(0, 19)}…` : node.id}
              </text>
              <text x={8} y={35} className="flow-node-type">
                {node.type.replace('_', ' ')}
                {problems.has(node.id) ? ' — problem' : ''}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}

// The edges between each pair of nodes, drawn once with their labels joined (two choices to one node).
function edgeGroups(definition: BotFlow['definition']) {
  const groups = new Map<string, { from: string; target: string; labels: string[] }>();
  for (const node of definition.nodes) {
    for (const edge of edgesOf(node)) {
      const key = `${node.id}\u0000${edge.target}`;
      const group = groups.get(key) ?? { from: node.id, target: edge.target, labels: [] };
      group.labels.push(edge.label);
      groups.set(key, group);
    }
  }
  return groups;
}

// What the drawing says to a screen reader: its size, its start, what is wrong; the editing is in
// the node forms below it.
function graphLabel(nodes: number, start: string, unreachable: number, problems: number): string {
  const parts = [`Graph of ${nodes} nodes starting at ${start || 'no node'}`];
  if (unreachable) parts.push(`${unreachable} not reached from the start`);
  if (problems) parts.push(`${problems} with problems`);
  return `${parts.join(', ')}; the nodes are edited in the list below`;
}
