import { clip } from '../../format.js';

/**
 * outline writes a parsed query as an indented tree of its nodes, each with its kind and the
 * text it covers, so an agent sees how an expression groups (what a `by` applies to, which
 * range belongs to which function) without knowing either engine's AST. It walks any object
 * with a node tag (`type` in PromQL, `kind` in LogQL) and a source position; matchers and
 * other leaves stay inside their parent's text.
 */
export function outline(root: unknown, q: string, maxNodes = 40): string[] {
  const lines: string[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (lines.length >= maxNodes || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth);
      return;
    }
    const record = node as Record<string, unknown>;
    const tag = typeof record.type === 'string' ? record.type : typeof record.kind === 'string' ? record.kind : undefined;
    const pos = record.pos as { start: number; end: number } | undefined;
    const isNode = tag !== undefined && pos !== undefined && typeof pos.start === 'number' && !LEAVES.has(tag);
    if (isNode) lines.push(`${'  '.repeat(depth)}${tag}: ${clip(q.slice(pos.start, pos.end).replace(/\s+/g, ' '), 120)}`);
    for (const [key, value] of Object.entries(record)) {
      if (key === 'pos' || key === 'func' || value === null || typeof value !== 'object') continue;
      visit(value, isNode ? depth + 1 : depth);
    }
  };
  visit(root, 0);
  if (lines.length >= maxNodes) lines.push('…');
  return lines;
}

/** LEAVES are node kinds too small to deserve a line of their own: their parent's text shows them. */
const LEAVES = new Set(['LabelMatcher', 'LineFilterLiteral', 'Grouping', 'NumberLiteral', 'StringLiteral']);
