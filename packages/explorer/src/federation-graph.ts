import cytoscape from 'cytoscape';

/**
 * The federation drawn as a graph (its own bundle, `graph.js`, imported by the federation page once it has
 * read the federation: cytoscape is larger than the rest of the page). Nodes: this node and each peer; one
 * edge per relation, pointing from the node that follows (or witnesses) to the one it follows (or witnesses for).
 */
export interface GraphPeer {
  actor: string;
  relations: readonly ('followers' | 'following' | 'witnesses' | 'witnessing')[];
}

/** Each relation as an edge: who it starts from (`peer` or `self`) and its label. */
const EDGES = {
  followers: { from: 'peer', label: 'follows' },
  following: { from: 'self', label: 'follows' },
  witnesses: { from: 'peer', label: 'witnesses for' },
  witnessing: { from: 'self', label: 'witnesses for' },
} as const;

/** Host and path of an actor, shorter than its URL for a node's label. */
function labelOf(actor: string): string {
  try {
    const url = new URL(actor);
    return `${url.host}${url.pathname}`;
  } catch {
    return actor;
  }
}

/**
 * Draws the graph into `container` and returns what it drew, in words (the canvas has no text of its own):
 * the page puts that on the figure as its accessible name, read back from the graph's own elements.
 */
export function drawFederation(container: HTMLElement, self: string, peers: readonly GraphPeer[]): string {
  const elements: cytoscape.ElementDefinition[] = [
    { data: { id: self, label: `${labelOf(self)} (this node)`, self: 1 } },
  ];
  for (const peer of peers) {
    if (peer.actor === self) continue;
    elements.push({ data: { id: peer.actor, label: labelOf(peer.actor), self: 0 } });
    for (const relation of peer.relations) {
      const edge = EDGES[relation];
      const [source, target] = edge.from === 'peer' ? [peer.actor, self] : [self, peer.actor];
      elements.push({ data: { id: `${relation} ${peer.actor}`, source, target, label: edge.label } });
    }
  }
  const cy = cytoscape({
    container,
    elements,
    // This node in the middle, its peers around it (the first to its left, so edges and their labels run
    // across); no zoom past 1, so the labels keep the page's size.
    layout: {
      name: 'concentric',
      concentric: (node) => Number(node.data('self')),
      levelWidth: () => 1,
      startAngle: Math.PI,
      minNodeSpacing: 260,
      padding: 40,
    },
    maxZoom: 1,
    userZoomingEnabled: false,
    boxSelectionEnabled: false,
    autoungrabify: true,
    style: [
      {
        selector: 'node',
        style: {
          label: 'data(label)',
          'background-color': '#2b6cb0',
          'font-size': 12,
          'text-valign': 'bottom',
          'text-margin-y': 6,
          color: '#1a202c',
        },
      },
      { selector: 'node[self = 1]', style: { 'background-color': '#2f855a' } },
      {
        selector: 'edge',
        style: {
          label: 'data(label)',
          'curve-style': 'bezier',
          'control-point-step-size': 40,
          'target-arrow-shape': 'triangle',
          'line-color': '#718096',
          'target-arrow-color': '#718096',
          'font-size': 10,
          'text-rotation': 'autorotate',
          'text-background-color': '#ffffff',
          'text-background-opacity': 1,
          color: '#1a202c',
        },
      },
    ],
  });
  const nodes = cy.nodes().map((node) => String(node.data('label')));
  const edges = cy
    .edges()
    .map((edge) => `${labelOf(edge.source().id())} ${String(edge.data('label'))} ${labelOf(edge.target().id())}`);
  return `The federation as a graph. Nodes: ${nodes.join(', ')}. Edges: ${edges.length === 0 ? 'none' : edges.join('; ')}.`;
}
