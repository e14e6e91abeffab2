import type { Series } from '../lib/series.js';

/** Sparkline is the small SVG trend under a stat or gauge value. */
export function Sparkline({ series, color }: { series: Series | undefined; color?: string }) {
  if (!series || series.points.size < 2) return null;
  const pts = [...series.points.entries()].sort((a, b) => a[0] - b[0]);
  const t0 = pts[0][0];
  const t1 = pts[pts.length - 1][0];
  const vs = pts.map((p) => p[1]);
  const lo = Math.min(...vs);
  const hi = Math.max(...vs);
  const d = pts
    .map(([t, v], i) => `${i === 0 ? 'M' : 'L'}${(((t - t0) / (t1 - t0 || 1)) * 100).toFixed(2)},${(30 - ((v - lo) / (hi - lo || 1)) * 28 - 1).toFixed(2)}`)
    .join(' ');
  return (
    <svg class="sparkline" viewBox="0 0 100 30" preserveAspectRatio="none" aria-hidden="true">
      <path d={d} fill="none" stroke={color ?? '#3274d9'} stroke-width="1.5" vector-effect="non-scaling-stroke" />
    </svg>
  );
}
