// AssemblyScript source of the float text module (engine/common/floatText.ts loads it; build
// with scripts/build-wasm.sh). It writes doubles as text in batches: JavaScript's
// Number#toString for result values and Go's strconv.FormatFloat(v, 'f', -1, 64) for the
// Prometheus API's sample values, byte for byte as those print them, at about a third of the
// cost of number-to-string in JavaScript, with no string made per value.
//
// The shortest decimal that reads back to a double is found as in Giulietti's Schubfach: with
// v = c·2^q, the decimal exponent k is chosen so that v's rounding interval is between one and
// ten units of 10^k wide. Then at most one multiple of ten (a shorter decimal) lies inside it,
// and otherwise one of the two integers around v·10^-k does; v·10^-k and the interval's ends
// are computed from a 126-bit approximation of 10^-k, rounded to odd, which keeps every
// comparison exact.
//
// Memory, shared with the loader (offsets in bytes, exported by `layout`):
//   [0, TABLE_END)            per k in [K_MIN, K_MAX]: 10^-k as g1 (high 63 bits), g0 (low
//                             63 bits), and floor(log2(10^-k)) as an i64; the loader fills it
//   [VALUES, +8·CHUNK)        input doubles
//   [TIMES, +8·CHUNK)         input timestamps in milliseconds (sample text only)
//   [AT, +4·(CHUNK+1))        output: where each item's text starts, relative to OUT
//   [OUT, OUT_END)            output text
//   [PAIRS, +200), [POWERS, +160)  digit pairs 00..99 and 10^0..10^19, written by `init`

const K_MIN: i32 = -324;
const K_MAX: i32 = 292;
const ENTRY: i32 = 24;
const TABLE_END: i32 = (K_MAX - K_MIN + 1) * ENTRY;
const CHUNK: i32 = 8192;
const VALUES: i32 = 16384;
const TIMES: i32 = VALUES + 8 * CHUNK;
const AT: i32 = TIMES + 8 * CHUNK;
const OUT: i32 = AT + 4 * (CHUNK + 4);
const OUT_END: i32 = OUT + 64 * CHUNK;
const PAIRS: i32 = OUT_END;
const POWERS: i32 = PAIRS + 200;
/** ITEM_ROOM bounds one item's text: Go spells 1e-300 with over 300 digits, never an exponent. */
const ITEM_ROOM: i32 = 400;

const MASK_63: u64 = 0x7fffffffffffffff;
const C_MIN: u64 = 1 << 52;
const Q_MIN: i32 = -1074;
const CHAR_0: u8 = 48;
const CHAR_POINT: u8 = 46;
const CHAR_MINUS: u8 = 45;
const CHAR_PLUS: u8 = 43;
const CHAR_COMMA: u8 = 44;
const CHAR_QUOTE: u8 = 34;

/** The decimal found last: digits (no trailing zeros), how many, and where the point goes (value = 0.d1…dk × 10^pointAt). */
let digits: u64 = 0;
let digitCount: i32 = 0;
let pointAt: i32 = 0;

/** layout tells the loader where each region starts: 0 table end, 1 values, 2 times, 3 at, 4 out, 5 out end, 6 chunk. */
export function layout(region: i32): i32 {
  if (region == 0) return TABLE_END;
  if (region == 1) return VALUES;
  if (region == 2) return TIMES;
  if (region == 3) return AT;
  if (region == 4) return OUT;
  if (region == 5) return OUT_END;
  return CHUNK;
}

/** init writes the digit pairs and powers of ten; the loader fills the table of 10^-k. */
export function init(): void {
  for (let i = 0; i < 100; i++) {
    store<u8>(PAIRS + 2 * i, <u8>(48 + i / 10));
    store<u8>(PAIRS + 2 * i + 1, <u8>(48 + (i % 10)));
  }
  let p: u64 = 1;
  for (let i = 0; i < 20; i++) {
    store<u64>(POWERS + 8 * i, p);
    p *= 10;
  }
}

/** mulHigh is the upper 64 bits of the 128-bit product a·b. */
function mulHigh(a: u64, b: u64): u64 {
  const a0 = a & 0xffffffff;
  const a1 = a >> 32;
  const b0 = b & 0xffffffff;
  const b1 = b >> 32;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >> 32) + (p01 & 0xffffffff) + (p10 & 0xffffffff);
  return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/** roundToOdd is (g1·2^63 + g0)·cp / 2^127 rounded down, with the lowest bit set when anything was dropped. */
function roundToOdd(g1: u64, g0: u64, cp: u64): u64 {
  const x1 = mulHigh(g0, cp);
  const y0 = g1 * cp;
  const y1 = mulHigh(g1, cp);
  const z = (y0 >> 1) + x1;
  const upper = y1 + (z >> 63);
  return upper | (((z & MASK_63) + MASK_63) >> 63);
}

/** floorLog10Pow2 is floor(q·log10(2)), exact for the exponents of doubles. */
function floorLog10Pow2(q: i32): i32 {
  return <i32>((<i64>q * 661971961083) >> 41);
}

/** floorLog10ThreeQuartersPow2 is floor(log10(3/4·2^q)), exact for the exponents of doubles. */
function floorLog10ThreeQuartersPow2(q: i32): i32 {
  return <i32>((<i64>q * 661971961083 - 274743187321) >> 41);
}

/** setDecimal records f·10^e (f > 0) as the decimal found, trailing zeros dropped. */
function setDecimal(f: u64, e: i32): void {
  while (f != 0 && f % 10 == 0) {
    f /= 10;
    e++;
  }
  // The digit count from the bit length (log10(2) ≈ 1233/4096), corrected by one comparison.
  let count = ((64 - <i32>clz(f)) * 1233) >> 12;
  if (f >= load<u64>(POWERS + 8 * count)) count++;
  digits = f;
  digitCount = count;
  pointAt = count + e;
}

/** toDecimal finds the shortest decimal that reads back to c·2^q (c > 0), nearest to it, even on a tie. */
function toDecimal(q: i32, c: u64, dk: i32): void {
  // An odd significand's interval leaves its ends out: reading them back rounds to the even neighbour.
  const open: u64 = c & 1;
  const cb = c << 2;
  const cbr = cb + 2;
  let cbl: u64;
  let k: i32;
  if (c != C_MIN || q == Q_MIN) {
    cbl = cb - 2;
    k = floorLog10Pow2(q);
  } else {
    // A power of two: the gap below is half the gap above.
    cbl = cb - 1;
    k = floorLog10ThreeQuartersPow2(q);
  }
  const entry = (k - K_MIN) * ENTRY;
  const g1 = load<u64>(entry);
  const g0 = load<u64>(entry + 8);
  const h = q + <i32>load<i64>(entry + 16) + 2;
  // v, the interval's lower and upper ends, times 4·10^-k.
  const vb = roundToOdd(g1, g0, cb << h);
  const vbl = roundToOdd(g1, g0, cbl << h);
  const vbr = roundToOdd(g1, g0, cbr << h);
  const s = vb >> 2;
  if (s >= 10) {
    // A multiple of ten inside the interval is a shorter decimal; there is at most one.
    const sp10 = (s / 10) * 10;
    const tp10 = sp10 + 10;
    const lowerIn = vbl + open <= sp10 << 2;
    const upperIn = (tp10 << 2) + open <= vbr;
    if (lowerIn != upperIn) {
      setDecimal(lowerIn ? sp10 : tp10, k + dk);
      return;
    }
  }
  const t = s + 1;
  const sIn = vbl + open <= s << 2;
  const tIn = (t << 2) + open <= vbr;
  if (sIn != tIn) {
    setDecimal(sIn ? s : t, k + dk);
    return;
  }
  // Both inside: the nearer one, the even one on a tie.
  const cmp = <i64>(vb - ((s + t) << 1));
  setDecimal(cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t, k + dk);
}

/** decimalOf finds the digits of |v| (finite, not zero). */
function decimalOf(v: f64): void {
  const bits = reinterpret<u64>(v) & MASK_63;
  const biased = <i32>(bits >> 52);
  const fraction = bits & (C_MIN - 1);
  if (biased == 0) {
    // Subnormal: a significand below 3 has too few bits for the interval; ten times it is scaled back by dk.
    if (fraction < 3) toDecimal(Q_MIN, fraction * 10, -1);
    else toDecimal(Q_MIN, fraction, 0);
    return;
  }
  const q = biased - 1075;
  const c = fraction | C_MIN;
  if (q < 0 && q > -53) {
    // An integer below 2^53 is its own shortest decimal.
    const whole = c >> <u64>-q;
    if (whole << <u64>-q == c) {
      setDecimal(whole, 0);
      return;
    }
  }
  toDecimal(q, c, 0);
}

/** writeDigits writes the decimal's digits at `at`, two at a time from the right, and returns the position after them. */
function writeDigits(at: i32): i32 {
  let f = digits;
  let i = at + digitCount;
  while (f >= 100000000) {
    const upper = f / 100000000;
    let lower = <u32>(f - upper * 100000000);
    f = upper;
    for (let j = 0; j < 4; j++) {
      i -= 2;
      store<u16>(i, load<u16>(PAIRS + 2 * (lower % 100)));
      lower /= 100;
    }
  }
  let r = <u32>f;
  while (r >= 100) {
    i -= 2;
    store<u16>(i, load<u16>(PAIRS + 2 * (r % 100)));
    r /= 100;
  }
  if (r >= 10) store<u16>(i - 2, load<u16>(PAIRS + 2 * r));
  else store<u8>(i - 1, <u8>(48 + r));
  return at + digitCount;
}

function writeZeros(at: i32, n: i32): i32 {
  memory.fill(at, CHAR_0, n);
  return at + n;
}

/** writePositional writes the decimal without an exponent, as Go's 'f' -1 does always and JavaScript from 1e-6 up to 1e21. */
function writePositional(at: i32): i32 {
  const n = pointAt;
  if (n <= 0) {
    store<u8>(at, CHAR_0);
    store<u8>(at + 1, CHAR_POINT);
    return writeDigits(writeZeros(at + 2, -n));
  }
  if (n >= digitCount) return writeZeros(writeDigits(at), n - digitCount);
  const end = writeDigits(at);
  memory.copy(at + n + 1, at + n, end - at - n);
  store<u8>(at + n, CHAR_POINT);
  return end + 1;
}

/** writeExponent writes `e+21` or `e-7` as JavaScript does. */
function writeExponent(at: i32, e: i32): i32 {
  store<u8>(at++, 101);
  if (e < 0) {
    store<u8>(at++, CHAR_MINUS);
    e = -e;
  } else store<u8>(at++, CHAR_PLUS);
  if (e >= 100) store<u8>(at++, <u8>(48 + e / 100));
  if (e >= 10) store<u8>(at++, <u8>(48 + ((e / 10) % 10)));
  store<u8>(at++, <u8>(48 + (e % 10)));
  return at;
}

/** writeAscii writes the text of a short ASCII string constant. */
function writeAscii(at: i32, text: string): i32 {
  for (let i = 0; i < text.length; i++) store<u8>(at + i, <u8>text.charCodeAt(i));
  return at + text.length;
}

/** writeJs writes a double as JavaScript's Number#toString does (-0 as 0). */
function writeJs(at: i32, v: f64): i32 {
  if (v != v) return writeAscii(at, 'NaN');
  if (v == Infinity) return writeAscii(at, 'Infinity');
  if (v == -Infinity) return writeAscii(at, '-Infinity');
  if (v == 0) {
    store<u8>(at, CHAR_0);
    return at + 1;
  }
  if (v < 0) store<u8>(at++, CHAR_MINUS);
  decimalOf(v);
  const n = pointAt;
  if (n > -6 && n <= 21) return writePositional(at);
  const end = writeDigits(at);
  if (digitCount == 1) return writeExponent(end, n - 1);
  memory.copy(at + 2, at + 1, end - at - 1);
  store<u8>(at + 1, CHAR_POINT);
  return writeExponent(end + 1, n - 1);
}

/** writeGo writes a double as Go's strconv.FormatFloat(v, 'f', -1, 64): NaN, +Inf, -Inf and -0 included. */
function writeGo(at: i32, v: f64): i32 {
  if (v != v) return writeAscii(at, 'NaN');
  if (v == Infinity) return writeAscii(at, '+Inf');
  if (v == -Infinity) return writeAscii(at, '-Inf');
  if (v == 0) {
    if (reinterpret<u64>(v) >> 63) store<u8>(at++, CHAR_MINUS);
    store<u8>(at, CHAR_0);
    return at + 1;
  }
  if (v < 0) store<u8>(at++, CHAR_MINUS);
  decimalOf(v);
  return writePositional(at);
}

/**
 * writeSeconds writes ms/1000 as JavaScript prints it. A whole number of milliseconds below
 * 10^15 is written from its digits: its decimal of at most three places is then the only
 * shortest one (the double's interval is far narrower than a thousandth).
 */
function writeSeconds(at: i32, ms: f64): i32 {
  if (ms == Math.floor(ms) && Math.abs(ms) < 1e15) {
    let whole = <i64>ms;
    if (whole == 0) {
      store<u8>(at, CHAR_0);
      return at + 1;
    }
    if (whole < 0) {
      store<u8>(at++, CHAR_MINUS);
      whole = -whole;
    }
    setDecimal(<u64>whole, -3);
    return writePositional(at);
  }
  return writeJs(at, ms / 1000);
}

/**
 * samples writes `[seconds,"value"],` for items [0, count) as the Prometheus API renders a
 * point: seconds as JavaScript prints ms/1000, the value as Go prints it. It stops early when
 * the output is full and returns how many items it wrote; AT[i] is where item i starts and
 * AT[written] where the text ends.
 */
export function samples(count: i32): i32 {
  let at = OUT;
  let i = 0;
  for (; i < count && at + ITEM_ROOM <= OUT_END; i++) {
    store<u32>(AT + 4 * i, at - OUT);
    store<u8>(at++, 91);
    at = writeSeconds(at, load<f64>(TIMES + 8 * i));
    store<u8>(at, CHAR_COMMA);
    store<u8>(at + 1, CHAR_QUOTE);
    at = writeGo(at + 2, load<f64>(VALUES + 8 * i));
    store<u8>(at, CHAR_QUOTE);
    store<u8>(at + 1, 93);
    store<u8>(at + 2, CHAR_COMMA);
    at += 3;
  }
  store<u32>(AT + 4 * i, at - OUT);
  return i;
}

/**
 * values writes each value as JavaScript prints it followed by a comma (only the comma for NaN
 * and infinities, which results leave out). A value equal to the one before repeats its text.
 * Stops early and reports as `samples` does.
 */
export function values(count: i32): i32 {
  let at = OUT;
  let i = 0;
  let last: f64 = NaN;
  let lastFrom = 0;
  let lastTo = 0;
  for (; i < count && at + ITEM_ROOM <= OUT_END; i++) {
    store<u32>(AT + 4 * i, at - OUT);
    const v = load<f64>(VALUES + 8 * i);
    if (v - v == 0) {
      if (reinterpret<u64>(v) == reinterpret<u64>(last)) {
        memory.copy(at, lastFrom, lastTo - lastFrom);
        at += lastTo - lastFrom;
      } else {
        lastFrom = at;
        at = writeJs(at, v);
        lastTo = at;
        last = v;
      }
    }
    store<u8>(at++, CHAR_COMMA);
  }
  store<u32>(AT + 4 * i, at - OUT);
  return i;
}
