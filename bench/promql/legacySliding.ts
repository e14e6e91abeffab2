import { nextOverlaps, type KernelInput, type KernelOutput } from '../../engine/promql/eval/kernels/types.js';

/**
 * avg_over_time and max_over_time as the engine computed them before each had a loop of its
 * own: one driver for every sliding kernel, calling the window through closures (reset,
 * advance, value) and the direct computation through another, so that V8 saw several targets
 * at each call and inlined none. Kept as the baseline of the window benchmark and as the
 * reference the single loops must match bit for bit. Its compensated addition keeps the
 * compensation in a module variable, as the engine's did then (a boxed double per store).
 */

let compensationSlot = 0;

function kahanInc(inc: number, sum: number, c: number): number {
  const t = sum + inc;
  if (t === Infinity || t === -Infinity) c = 0;
  else if (Math.abs(sum) >= Math.abs(inc)) c += sum - t + inc;
  else c += inc - t + sum;
  compensationSlot = c;
  return t;
}

function kahanCompensation(): number {
  return compensationSlot;
}

interface Sliding {
  reset(pos: number): void;
  advance(lo: number, hi: number): void;
  value(): number;
}

function runWindows(input: KernelInput, out: KernelOutput, direct: (lo: number, hi: number) => number, makeSliding: () => Sliding, accept: (lo: number, hi: number) => boolean = (lo, hi) => hi > lo): void {
  const { lo, hi } = input;
  let sliding: Sliding | null = null;
  let active = false;
  for (let i = 0; i < lo.length; i++) {
    const a = lo[i];
    const b = hi[i];
    if (!accept(a, b)) {
      active = false;
      continue;
    }
    let value: number;
    if (active && sliding !== null && i > 0 && a < hi[i - 1]) {
      sliding.advance(a, b);
      value = sliding.value();
      if (!Number.isFinite(value)) value = direct(a, b);
    } else if (nextOverlaps(input, i)) {
      sliding ??= makeSliding();
      sliding.reset(a);
      sliding.advance(a, b);
      active = true;
      value = sliding.value();
      if (!Number.isFinite(value)) value = direct(a, b);
    } else {
      value = direct(a, b);
      active = false;
    }
    out.values[i] = value;
    out.present[i] = 1;
  }
}

/** Window is the front/back split of the two-stacks technique over [lo, mid) and [mid, hi). */
abstract class Window {
  protected lo = 0;
  protected mid = 0;
  protected hi = 0;

  reset(pos: number): void {
    this.lo = this.mid = this.hi = pos;
    this.clearBack();
  }

  advance(newLo: number, newHi: number): void {
    if (newLo >= this.hi) {
      this.reset(newLo);
    } else if (newLo > this.lo) {
      if (newLo >= this.mid) {
        this.buildSuffix(newLo, this.hi);
        this.mid = this.hi;
        this.clearBack();
      }
      this.lo = newLo;
    }
    for (let j = this.hi; j < newHi; j++) this.pushBack(j);
    if (newHi > this.hi) this.hi = newHi;
  }

  protected abstract buildSuffix(from: number, to: number): void;
  protected abstract pushBack(j: number): void;
  protected abstract clearBack(): void;
}

class SumWindow extends Window {
  private sufSum = new Float64Array(0);
  private sufComp = new Float64Array(0);
  private backSum = 0;
  private backComp = 0;
  private vals: Float64Array = new Float64Array(0);

  bind(vals: Float64Array): void {
    this.vals = vals;
    if (this.sufSum.length < vals.length) {
      this.sufSum = new Float64Array(vals.length * 2);
      this.sufComp = new Float64Array(vals.length * 2);
    }
  }

  protected buildSuffix(from: number, to: number): void {
    let s = 0;
    let c = 0;
    for (let i = to - 1; i >= from; i--) {
      s = kahanInc(this.vals[i], s, c);
      c = kahanCompensation();
      this.sufSum[i] = s;
      this.sufComp[i] = c;
    }
  }

  protected pushBack(j: number): void {
    this.backSum = kahanInc(this.vals[j], this.backSum, this.backComp);
    this.backComp = kahanCompensation();
  }

  protected clearBack(): void {
    this.backSum = 0;
    this.backComp = 0;
  }

  mean(): number {
    let s: number;
    let c: number;
    if (this.lo === this.mid) {
      s = this.backSum;
      c = this.backComp;
    } else if (this.mid === this.hi) {
      s = this.sufSum[this.lo];
      c = this.sufComp[this.lo];
    } else {
      s = kahanInc(this.backSum, this.sufSum[this.lo], this.sufComp[this.lo]);
      c = kahanCompensation() + this.backComp;
    }
    const n = this.hi - this.lo;
    return s / n + c / n;
  }
}

function better(candidate: number, best: number): boolean {
  return best !== best || candidate > best;
}

class MaxWindow extends Window {
  private sufIndex = new Int32Array(0);
  private backIndex = -1;
  private vals: Float64Array = new Float64Array(0);

  bind(vals: Float64Array): void {
    this.vals = vals;
    if (this.sufIndex.length < vals.length) this.sufIndex = new Int32Array(vals.length * 2);
  }

  protected buildSuffix(from: number, to: number): void {
    let best = -1;
    for (let i = to - 1; i >= from; i--) {
      if (best < 0 || !better(this.vals[best], this.vals[i])) best = i;
      this.sufIndex[i] = best;
    }
  }

  protected pushBack(j: number): void {
    if (this.backIndex < 0 || better(this.vals[j], this.vals[this.backIndex])) this.backIndex = j;
  }

  protected clearBack(): void {
    this.backIndex = -1;
  }

  max(): number {
    if (this.lo === this.mid) return this.vals[this.backIndex];
    const front = this.sufIndex[this.lo];
    if (this.mid === this.hi) return this.vals[front];
    return better(this.vals[this.backIndex], this.vals[front]) ? this.vals[this.backIndex] : this.vals[front];
  }
}

/** directMean is the compensated mean of vals[lo..hi) (without the overflow switch, which the benchmark's data never needs). */
function directMean(vals: Float64Array, lo: number, hi: number): number {
  let s = 0;
  let c = 0;
  for (let j = lo; j < hi; j++) {
    s = kahanInc(vals[j], s, c);
    c = kahanCompensation();
  }
  return s / (hi - lo) + c / (hi - lo);
}

function directMax(vals: Float64Array, lo: number, hi: number): number {
  let best = lo;
  for (let j = lo + 1; j < hi; j++) if (better(vals[j], vals[best])) best = j;
  return vals[best];
}

const sumWindow = new SumWindow();
const maxWindow = new MaxWindow();

/** legacyAvgOverTime is avg_over_time through the closure-driven window. */
export function legacyAvgOverTime(input: KernelInput, out: KernelOutput): void {
  const vals = input.vals;
  runWindows(
    input,
    out,
    (lo, hi) => directMean(vals, lo, hi),
    () => {
      sumWindow.bind(vals);
      return { reset: (p) => sumWindow.reset(p), advance: (a, b) => sumWindow.advance(a, b), value: () => sumWindow.mean() };
    },
  );
}

/** legacyMaxOverTime is max_over_time through the closure-driven window. */
export function legacyMaxOverTime(input: KernelInput, out: KernelOutput): void {
  const vals = input.vals;
  runWindows(
    input,
    out,
    (lo, hi) => directMax(vals, lo, hi),
    () => {
      maxWindow.bind(vals);
      return { reset: (p) => maxWindow.reset(p), advance: (a, b) => maxWindow.advance(a, b), value: () => maxWindow.max() };
    },
  );
}
