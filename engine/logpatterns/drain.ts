/**
 * Log template mining in the manner of Drain (He et al., 2017): lines become token sequences,
 * a fixed-depth prefix tree narrows each line to a small set of candidate clusters (same token
 * count, same leading tokens), and the line joins the most similar candidate, whose template
 * then turns the positions where they differ into wildcards. The result answers "what kinds of
 * lines are these, and how many of each, when" without reading the lines.
 *
 * Similarity is the share of positions where the line's token fits the template: the tokens
 * are equal, or the template already has a wildcard there (`<*>`, or `key=<*>` and the token
 * has that key). Counting learned wildcards as fitting keeps a cluster from scoring lower with
 * every new value at a position it knows to vary; templates only ever become more general.
 * Tokenising, masking, and the handling of logfmt and JSON lines are in tokens.ts: JSON
 * objects are mined in `key=value` form with keys kept and numbers masked, and structured
 * lines are routed through the tree by their level and message rather than their first keys.
 *
 * Work per line is bounded (tokenising is linear in the line, which is cut to maxLineLength;
 * the tree has fixed depth; a leaf holds at most maxClusters candidates), so mining is linear
 * in the input. Memory is bounded by maxClusters: see DrainMiner for the eviction policy.
 * Nothing depends on wall time, randomness or iteration order of unordered structures, so
 * the same lines in the same order always give the same patterns and ids.
 */
import { KEY_WILDCARD_SUFFIX, WILDCARD, keyLength, routeKeys, tokenizeLine } from './tokens.js';
import { UsageOrder, type UsageLinks } from './usage.js';

/** Equal-width time buckets over [startMs, endMs] for per-pattern counts over time. */
export interface DrainTimeBuckets {
  startMs: number;
  /** Inclusive: a line at endMs counts in the last bucket. */
  endMs: number;
  /** Number of buckets, at least one. */
  count: number;
}

export interface DrainOptions {
  /** Prefix tree depth as Drain counts it: the tree keys on depth-2 leading tokens. Default 4. */
  depth?: number;
  /** Share of positions that must fit a template for a line to join it, in (0, 1]. Default 0.4. */
  similarity?: number;
  /** Most children per tree node; past it new tokens share the wildcard child. Default 100. */
  maxChildren?: number;
  /** Most clusters kept; the least used is folded into the overflow pattern past it. Default 1000. */
  maxClusters?: number;
  /** Lines are cut to this many characters before tokenising. Default 2048. */
  maxLineLength?: number;
  /** When set, every pattern also carries counts per time bucket of this window. */
  timeBuckets?: DrainTimeBuckets;
}

/** LogPattern is one mined template and what was seen of it. */
export interface LogPattern {
  /** Cluster id as returned by DrainMiner.add; -1 for the overflow pattern. */
  id: number;
  /** Tokens joined by single spaces, variable positions as `<*>` (or `key=<*>`). */
  template: string;
  count: number;
  /** The first line that formed the pattern, cut to maxLineLength. */
  sampleLine: string;
  /** Earliest and latest timestamps seen, whatever order lines were added in. */
  firstMs: number;
  lastMs: number;
  /** Counts per time bucket when the miner has timeBuckets; lines outside the window are not in any. */
  buckets?: number[];
  /** True for the pattern that holds the counts of evicted clusters. */
  overflow?: boolean;
}

/** DrainStats describe the miner's size, for checking that memory stays bounded. */
export interface DrainStats {
  lines: number;
  clusters: number;
  evicted: number;
  treeNodes: number;
}

/** OVERFLOW_TEMPLATE is the template of the pattern that absorbs evicted clusters. */
export const OVERFLOW_TEMPLATE = '<other>';

const DEFAULTS = { depth: 4, similarity: 0.4, maxChildren: 100, maxClusters: 1000, maxLineLength: 2048 };
/** Bucket arrays are per cluster, so their length is capped to keep the memory bound meaningful. */
const MAX_TIME_BUCKETS = 10_000;

interface TreeNode {
  parent: TreeNode | undefined;
  /** Key under the parent, or the token count for a first-level node. */
  key: string | number;
  children: Map<string, TreeNode>;
  /** Clusters whose route ends here. */
  clusters: Cluster[];
}

/** Counts shared by clusters and the overflow pattern. */
interface Tally {
  count: number;
  sample: string;
  firstMs: number;
  lastMs: number;
  buckets: Uint32Array | undefined;
}

interface Cluster extends Tally, UsageLinks {
  id: number;
  tokens: string[];
  node: TreeNode;
}

function checkInteger(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
  return value;
}

function checkTimeBuckets(b: DrainTimeBuckets | undefined): DrainTimeBuckets | undefined {
  if (b === undefined) return undefined;
  checkInteger('timeBuckets.count', b.count, 1);
  if (b.count > MAX_TIME_BUCKETS) throw new RangeError(`timeBuckets.count must be at most ${MAX_TIME_BUCKETS}`);
  if (!Number.isFinite(b.startMs) || !Number.isFinite(b.endMs) || b.endMs < b.startMs) {
    throw new RangeError('timeBuckets needs finite startMs <= endMs');
  }
  return { ...b };
}

/**
 * ownedTokens copies tokens into one string of the cluster's own. Tokens are slices of the
 * line they came from, and V8 slices keep their whole parent alive; a cluster kept for hours
 * must not pin an arbitrarily long line.
 */
function ownedTokens(tokens: readonly string[]): string[] {
  return tokens.length === 0 ? [] : tokens.join(' ').split(' ');
}

/**
 * ownedSample is the line as kept for display: cut to maxLength and copied, for the same
 * reason, since callers often pass lines sliced out of a much larger decoded chunk.
 */
function ownedSample(line: string, maxLength: number): string {
  return JSON.parse(JSON.stringify(line.length > maxLength ? line.slice(0, maxLength) : line)) as string;
}

/**
 * fits reports whether a line token is covered by a template token: equal, or the template
 * has a wildcard there, or a `key=<*>` with the same key.
 */
function fits(template: string, token: string): boolean {
  if (template === token || template === WILDCARD) return true;
  return template.endsWith(KEY_WILDCARD_SUFFIX) && token.startsWith(template.slice(0, 1 - KEY_WILDCARD_SUFFIX.length));
}

/**
 * fitCount counts the positions of `tokens` that fit `template` (both the same length), or
 * returns -1 as soon as more than `allowedMisses` positions do not.
 */
function fitCount(template: readonly string[], tokens: readonly string[], allowedMisses: number): number {
  let misses = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (fits(template[i], tokens[i])) continue;
    if (++misses > allowedMisses) return -1;
  }
  return tokens.length - misses;
}

/**
 * generalize turns the template positions a joining line does not fit into wildcards, keeping
 * the key of `key=value` tokens whose keys agree.
 */
function generalize(template: string[], tokens: readonly string[]): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = template[i];
    if (fits(t, tokens[i])) continue;
    const key = keyLength(t);
    const sameKey = key > 0 && tokens[i].length > key && tokens[i].charCodeAt(key) === 61 && tokens[i].startsWith(t.slice(0, key));
    template[i] = sameKey ? t.slice(0, key) + KEY_WILDCARD_SUFFIX : WILDCARD;
  }
}

/**
 * DrainMiner clusters log lines into templates.
 *
 * Cap policy: at most maxClusters clusters are kept. When a line needs a new cluster and the
 * miner is full, the least frequently used cluster (least recently used among equal counts)
 * is evicted and its count, time range and buckets are folded into a single overflow pattern
 * (template OVERFLOW_TEMPLATE). So a flood of one-off lines cannot push out established
 * patterns, a new pattern appearing late still gets a cluster, memory stays bounded, and the
 * counts of all patterns, overflow included, always add up to the lines added.
 */
export class DrainMiner {
  private readonly levels: number;
  private readonly similarity: number;
  private readonly maxChildren: number;
  private readonly maxClusters: number;
  private readonly maxLineLength: number;
  private readonly window: DrainTimeBuckets | undefined;
  private readonly roots = new Map<number, TreeNode>();
  private readonly clusters = new Map<number, Cluster>();
  private readonly usage = new UsageOrder<Cluster>();
  private readonly overflow: Tally;
  private nextId = 0;
  private lines = 0;
  private evicted = 0;
  private nodes = 0;

  constructor(options: DrainOptions = {}) {
    this.levels = checkInteger('depth', options.depth ?? DEFAULTS.depth, 3) - 2;
    this.similarity = options.similarity ?? DEFAULTS.similarity;
    if (!(this.similarity > 0 && this.similarity <= 1)) throw new RangeError(`similarity must be in (0, 1], got ${this.similarity}`);
    this.maxChildren = checkInteger('maxChildren', options.maxChildren ?? DEFAULTS.maxChildren, 2);
    this.maxClusters = checkInteger('maxClusters', options.maxClusters ?? DEFAULTS.maxClusters, 1);
    this.maxLineLength = checkInteger('maxLineLength', options.maxLineLength ?? DEFAULTS.maxLineLength, 1);
    this.window = checkTimeBuckets(options.timeBuckets);
    this.overflow = { count: 0, sample: '', firstMs: Infinity, lastMs: -Infinity, buckets: this.newBuckets() };
  }

  /** add mines one line and returns the id of the cluster it joined or started. */
  add(line: string, timestampMs: number): number {
    this.lines++;
    const tokens = tokenizeLine(line, this.maxLineLength);
    const route = routeKeys(tokens, this.levels);
    const leaf = this.findNode(tokens.length, route);
    const match = leaf === undefined ? undefined : this.bestMatch(leaf, tokens);
    if (match !== undefined) {
      if (match.fit < tokens.length) generalize(match.cluster.tokens, tokens);
      this.usage.touch(match.cluster);
      this.record(match.cluster, timestampMs);
      return match.cluster.id;
    }
    return this.startCluster(tokens, route, line, timestampMs).id;
  }

  /** patterns returns every pattern, the overflow one included when it has lines, by count descending. */
  patterns(): LogPattern[] {
    const out: LogPattern[] = [];
    for (const c of this.clusters.values()) out.push(this.toPattern(c.id, c.tokens.join(' '), c));
    if (this.overflow.count > 0) out.push({ ...this.toPattern(-1, OVERFLOW_TEMPLATE, this.overflow), overflow: true });
    // Ties by id keep the order deterministic; the overflow pattern (-1) goes after its equals.
    const order = (p: LogPattern): number => (p.id < 0 ? Infinity : p.id);
    return out.sort((a, b) => b.count - a.count || order(a) - order(b));
  }

  /** stats reports how much the miner holds. */
  stats(): DrainStats {
    return { lines: this.lines, clusters: this.clusters.size, evicted: this.evicted, treeNodes: this.nodes };
  }

  private toPattern(id: number, template: string, t: Tally): LogPattern {
    const p: LogPattern = { id, template, count: t.count, sampleLine: t.sample, firstMs: t.firstMs, lastMs: t.lastMs };
    if (t.buckets !== undefined) p.buckets = Array.from(t.buckets);
    return p;
  }

  private newBuckets(): Uint32Array | undefined {
    return this.window === undefined ? undefined : new Uint32Array(this.window.count);
  }

  /** bucketIndex returns the time bucket of `ms`, or -1 outside the window. */
  private bucketIndex(ms: number): number {
    const w = this.window;
    if (w === undefined || !(ms >= w.startMs && ms <= w.endMs)) return -1;
    if (w.endMs === w.startMs) return 0;
    return Math.min(w.count - 1, Math.floor(((ms - w.startMs) * w.count) / (w.endMs - w.startMs)));
  }

  private record(t: Tally, ms: number): void {
    if (ms < t.firstMs) t.firstMs = ms;
    if (ms > t.lastMs) t.lastMs = ms;
    const b = this.bucketIndex(ms);
    if (b >= 0 && t.buckets !== undefined) t.buckets[b]++;
  }

  /** findNode follows `route` without changing the tree, falling back to wildcard children. */
  private findNode(length: number, route: readonly string[]): TreeNode | undefined {
    let node = this.roots.get(length);
    for (let i = 0; i < route.length && node !== undefined; i++) {
      node = node.children.get(route[i]) ?? node.children.get(WILDCARD);
    }
    return node;
  }

  /**
   * bestMatch returns the cluster in `node` that `tokens` fit best, if any fits well enough,
   * with the number of positions that fit. Ties go to the older cluster.
   */
  private bestMatch(node: TreeNode, tokens: readonly string[]): { cluster: Cluster; fit: number } | undefined {
    const needed = Math.ceil(this.similarity * tokens.length - 1e-9);
    let best: Cluster | undefined;
    let bestFit = -1;
    for (const c of node.clusters) {
      const allowedMisses = tokens.length - Math.max(needed, bestFit + 1);
      if (allowedMisses < 0) break;
      const fit = fitCount(c.tokens, tokens, allowedMisses);
      if (fit > bestFit) {
        best = c;
        bestFit = fit;
        if (fit === tokens.length) break;
      }
    }
    return best === undefined ? undefined : { cluster: best, fit: bestFit };
  }

  private newNode(parent: TreeNode | undefined, key: string | number): TreeNode {
    this.nodes++;
    return { parent, key, children: new Map(), clusters: [] };
  }

  /**
   * nodeFor follows `route`, creating nodes as needed. A full node (maxChildren, one slot kept
   * for the wildcard) sends new tokens to its wildcard child, which bounds the tree's width.
   */
  private nodeFor(length: number, route: readonly string[]): TreeNode {
    let node: TreeNode | undefined = this.roots.get(length);
    if (node === undefined) {
      node = this.newNode(undefined, length);
      this.roots.set(length, node);
    }
    for (const token of route) {
      let key = token;
      let child: TreeNode | undefined = node.children.get(key);
      if (child === undefined && key !== WILDCARD && node.children.size >= this.maxChildren - 1) {
        key = WILDCARD;
        child = node.children.get(key);
      }
      if (child === undefined) {
        child = this.newNode(node, key);
        node.children.set(key, child);
      }
      node = child;
    }
    return node;
  }

  private startCluster(tokens: readonly string[], route: readonly string[], line: string, ms: number): Cluster {
    // A full miner reuses the evicted cluster's bucket array: under a flood of one-off lines
    // that is one allocation fewer per line.
    const reused = this.clusters.size >= this.maxClusters ? this.evictLeastUsed() : undefined;
    const node = this.nodeFor(tokens.length, route);
    const cluster: Cluster = {
      id: this.nextId++,
      tokens: ownedTokens(tokens),
      node,
      count: 0,
      sample: ownedSample(line, this.maxLineLength),
      firstMs: ms,
      lastMs: ms,
      buckets: reused === undefined ? this.newBuckets() : reused.fill(0),
      prevUse: undefined,
      nextUse: undefined,
    };
    node.clusters.push(cluster);
    this.clusters.set(cluster.id, cluster);
    this.usage.add(cluster);
    this.record(cluster, ms);
    return cluster;
  }

  /**
   * evictLeastUsed drops the least used cluster, keeping its counts in the overflow pattern,
   * and returns its bucket array for reuse.
   */
  private evictLeastUsed(): Uint32Array | undefined {
    const victim = this.usage.leastUsed();
    if (victim === undefined) return undefined;
    this.usage.remove(victim);
    this.clusters.delete(victim.id);
    this.evicted++;
    this.foldIntoOverflow(victim);
    const siblings = victim.node.clusters;
    siblings.splice(siblings.indexOf(victim), 1);
    this.prune(victim.node);
    return victim.buckets;
  }

  private foldIntoOverflow(c: Cluster): void {
    const o = this.overflow;
    if (o.count === 0) o.sample = c.sample;
    o.count += c.count;
    if (c.firstMs < o.firstMs) o.firstMs = c.firstMs;
    if (c.lastMs > o.lastMs) o.lastMs = c.lastMs;
    if (o.buckets !== undefined && c.buckets !== undefined) for (let i = 0; i < o.buckets.length; i++) o.buckets[i] += c.buckets[i];
  }

  /** prune removes `node` and its ancestors while they hold neither clusters nor children. */
  private prune(node: TreeNode | undefined): void {
    while (node !== undefined && node.clusters.length === 0 && node.children.size === 0) {
      const parent = node.parent;
      if (parent === undefined) this.roots.delete(node.key as number);
      else parent.children.delete(node.key as string);
      this.nodes--;
      node = parent;
    }
  }
}
