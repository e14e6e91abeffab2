/**
 * Compact rows for listings. An agent reading a listing wants what `kubectl get` shows: name,
 * namespace, whether it is healthy, how old. Full objects would cost thousands of tokens per
 * item, so each kind gets a small summary computed from its status, and kinds the driver does
 * not know get name and age plus a generic phase or Ready condition when they have one.
 */

/** Row is one listed object. Optional fields are left out when the kind has no such notion. */
export interface Row {
  name: string;
  namespace?: string;
  /** ready is `ready/desired` (containers for pods, replicas for workloads). */
  ready?: string;
  status?: string;
  restarts?: number;
  age: string;
  created?: string;
}

/** Obj is an API object read loosely: every field may be missing, and each read checks its type. */
type Obj = Record<string, any>;

/** summarize builds the row of one object of `kind`. */
export function summarize(kind: string, obj: Obj, now: number): Row {
  const meta: Obj = obj.metadata ?? {};
  const row: Row = { name: String(meta.name ?? ''), age: age(meta.creationTimestamp, now) };
  if (typeof meta.namespace === 'string') row.namespace = meta.namespace;
  if (typeof meta.creationTimestamp === 'string') row.created = meta.creationTimestamp;
  const spec: Obj = obj.spec ?? {};
  const status: Obj = obj.status ?? {};
  switch (kind) {
    case 'Pod':
      Object.assign(row, podSummary(obj));
      break;
    case 'Deployment':
      row.ready = `${num(status.readyReplicas)}/${num(spec.replicas, 1)}`;
      row.status = deploymentStatus(status);
      break;
    case 'StatefulSet':
    case 'ReplicaSet':
    case 'ReplicationController':
      row.ready = `${num(status.readyReplicas)}/${num(spec.replicas, 1)}`;
      break;
    case 'DaemonSet':
      row.ready = `${num(status.numberReady)}/${num(status.desiredNumberScheduled)}`;
      break;
    case 'Job':
      row.ready = `${num(status.succeeded)}/${num(spec.completions, 1)}`;
      row.status = jobStatus(status);
      break;
    case 'CronJob':
      row.status = spec.suspend === true ? 'Suspended' : `Active ${Array.isArray(status.active) ? status.active.length : 0}`;
      break;
    case 'Node':
      row.status = nodeStatus(obj);
      break;
    case 'Service':
      row.status = String(spec.type ?? 'ClusterIP');
      break;
    case 'Secret':
      if (typeof obj.type === 'string') row.status = obj.type;
      break;
    default:
      row.status = genericStatus(status);
  }
  if (meta.deletionTimestamp) row.status = 'Terminating';
  if (row.status === undefined) delete row.status;
  return row;
}

/** podSummary mirrors kubectl's pod columns: containers ready, the most telling reason, restarts. */
function podSummary(pod: Obj): Partial<Row> {
  const status: Obj = pod.status ?? {};
  const containers: Obj[] = Array.isArray(status.containerStatuses) ? status.containerStatuses : [];
  const total = Array.isArray(pod.spec?.containers) ? pod.spec.containers.length : containers.length;
  const ready = containers.filter((c) => c.ready === true).length;
  const restarts = containers.reduce((sum, c) => sum + num(c.restartCount), 0);
  let reason: string = status.reason ?? status.phase ?? 'Unknown';
  const inits: Obj[] = Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses : [];
  const blockedInit = inits.find((c) => c.state?.waiting?.reason || (c.state?.terminated && c.state.terminated.exitCode !== 0));
  const waiting = containers.find((c) => typeof c.state?.waiting?.reason === 'string');
  const terminated = containers.find((c) => c.state?.terminated);
  if (blockedInit) reason = `Init:${blockedInit.state?.waiting?.reason ?? blockedInit.state?.terminated?.reason ?? 'Error'}`;
  else if (waiting) reason = waiting.state.waiting.reason;
  else if (terminated && !containers.some((c) => c.state?.running)) reason = terminated.state.terminated.reason ?? `ExitCode:${terminated.state.terminated.exitCode}`;
  return { ready: `${ready}/${total}`, status: reason, restarts };
}

function deploymentStatus(status: Obj): string | undefined {
  const conditions: Obj[] = Array.isArray(status.conditions) ? status.conditions : [];
  const progressing = conditions.find((c) => c.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return 'ProgressDeadlineExceeded';
  const available = conditions.find((c) => c.type === 'Available');
  if (available) return available.status === 'True' ? 'Available' : 'Unavailable';
  return undefined;
}

function jobStatus(status: Obj): string {
  const conditions: Obj[] = Array.isArray(status.conditions) ? status.conditions : [];
  const done = conditions.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  if (done) return done.type;
  return num(status.active) > 0 ? 'Running' : 'Pending';
}

function nodeStatus(node: Obj): string {
  const conditions: Obj[] = Array.isArray(node.status?.conditions) ? node.status.conditions : [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const base = ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown';
  return node.spec?.unschedulable === true ? `${base},SchedulingDisabled` : base;
}

/** genericStatus reads the conventions most kinds follow: `status.phase`, or a Ready condition. */
function genericStatus(status: Obj): string | undefined {
  if (typeof status.phase === 'string') return status.phase;
  const conditions: Obj[] = Array.isArray(status.conditions) ? status.conditions : [];
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready) return ready.status === 'True' ? 'Ready' : 'NotReady';
  return undefined;
}

function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** age prints how long ago `timestamp` was the way kubectl does: 45s, 12m, 3h20m, 5d3h, 400d. */
export function age(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<unknown>';
  const s = Math.max(0, Math.floor((now - at) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return `${d}d${h % 24 ? `${h % 24}h` : ''}`;
  return `${d}d`;
}

/** table renders aligned columns; columns whose every cell is empty are dropped. */
export function table(headers: string[], rows: string[][]): string {
  const keep = headers.map((_, i) => rows.some((r) => (r[i] ?? '') !== ''));
  const cols = headers.map((h, i) => ({ h, i })).filter(({ i }) => keep[i] || i === 0);
  const widths = cols.map(({ h, i }) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cols
      .map(({ i }, c) => (c === cols.length - 1 ? cells[i] ?? '' : (cells[i] ?? '').padEnd(widths[c]!)))
      .join('   ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
