/**
 * Go time layouts (the reference time "Mon Jan 2 15:04:05 MST 2006") split into literal text
 * and standard elements. The layout is read left to right and, at each position, the first
 * element that starts there wins, exactly as Go's time package reads it: so in
 * `05 15:04:05.000` the first `05` is seconds and `.000` belongs to the last `05`. Formatting
 * and parsing both walk this one list, so they agree on what a layout means.
 */

/** StdElement is a standard layout element, written as in the reference time. */
export type StdElement =
  | 'January'
  | 'Jan'
  | 'Monday'
  | 'Mon'
  | 'MST'
  | '2006'
  | '06'
  | '01'
  | '1'
  | '02'
  | '2'
  | '_2'
  | '002'
  | '__2'
  | '15'
  | '03'
  | '3'
  | '04'
  | '4'
  | '05'
  | '5'
  | 'PM'
  | 'pm'
  | ZoneElement;

/** ZoneElement is a numeric zone offset; the `Z` forms print and accept `Z` for UTC. */
export type ZoneElement =
  | '-070000'
  | '-07:00:00'
  | '-0700'
  | '-07:00'
  | '-07'
  | 'Z070000'
  | 'Z07:00:00'
  | 'Z0700'
  | 'Z07:00'
  | 'Z07';

/** FractionElement is `.000`/`,000` (fixed width) or `.999`/`,999` (trailing zeros dropped). */
export interface FractionElement {
  kind: 'fraction';
  separator: '.' | ',';
  /** fixed is true for 0s: exactly `digits` digits; false for 9s: up to `digits`. */
  fixed: boolean;
  digits: number;
}

/** LayoutElement is one piece of a layout. */
export type LayoutElement = { kind: 'literal'; text: string } | { kind: 'std'; std: StdElement } | FractionElement;

/** The zone forms, longest first, so the first that matches is the one Go picks. */
const NUMERIC_ZONES: readonly ZoneElement[] = ['-070000', '-07:00:00', '-0700', '-07:00', '-07'];
const Z_ZONES: readonly ZoneElement[] = ['Z070000', 'Z07:00:00', 'Z0700', 'Z07:00', 'Z07'];

/** ZERO_PREFIXED maps the digit after a `0` to its element: 01 month … 06 year. */
const ZERO_PREFIXED: Record<string, StdElement> = { '1': '01', '2': '02', '3': '03', '4': '04', '5': '05', '6': '06' };

function isLowerCase(c: string | undefined): boolean {
  return c !== undefined && c >= 'a' && c <= 'z';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** StdMatch is an element found at a position and where the layout continues after it. */
interface StdMatch {
  element: { kind: 'std'; std: StdElement } | FractionElement;
  /** literalEnd is where the literal before the element ends (`_2006` keeps its `_`). */
  literalEnd: number;
  end: number;
}

function std(element: StdElement, at: number, length: number): StdMatch {
  return { element: { kind: 'std', std: element }, literalEnd: at, end: at + length };
}

function firstPrefix(layout: string, at: number, forms: readonly ZoneElement[]): StdMatch | undefined {
  const form = forms.find((f) => layout.startsWith(f, at));
  return form === undefined ? undefined : std(form, at, form.length);
}

/** fractionAt reads `.000`/`.999` style runs; a run followed by another digit is literal text. */
function fractionAt(layout: string, at: number): StdMatch | undefined {
  const digit = layout[at + 1];
  if (digit !== '0' && digit !== '9') return undefined;
  let end = at + 1;
  while (layout[end] === digit) end++;
  if (isDigit(layout[end])) return undefined;
  const separator = layout[at] as '.' | ',';
  return { element: { kind: 'fraction', separator, fixed: digit === '0', digits: end - at - 1 }, literalEnd: at, end };
}

/** stdAt returns the element starting at `at`, or undefined when the character is literal. */
function stdAt(layout: string, at: number): StdMatch | undefined {
  const rest = (length: number): string => layout.slice(at, at + length);
  switch (layout[at]) {
    case 'J':
      if (rest(7) === 'January') return std('January', at, 7);
      if (rest(3) === 'Jan' && !isLowerCase(layout[at + 3])) return std('Jan', at, 3);
      return undefined;
    case 'M':
      if (rest(6) === 'Monday') return std('Monday', at, 6);
      if (rest(3) === 'Mon' && !isLowerCase(layout[at + 3])) return std('Mon', at, 3);
      if (rest(3) === 'MST') return std('MST', at, 3);
      return undefined;
    case '0': {
      const zeroPrefixed = ZERO_PREFIXED[layout[at + 1] ?? ''];
      if (zeroPrefixed !== undefined) return std(zeroPrefixed, at, 2);
      if (rest(3) === '002') return std('002', at, 3);
      return undefined;
    }
    case '1':
      return layout[at + 1] === '5' ? std('15', at, 2) : std('1', at, 1);
    case '2':
      return rest(4) === '2006' ? std('2006', at, 4) : std('2', at, 1);
    case '_':
      if (layout[at + 1] === '2') {
        // `_2006` is a literal underscore and then the year, not `_2` and "006".
        if (rest(5) === '_2006') return { element: { kind: 'std', std: '2006' }, literalEnd: at + 1, end: at + 5 };
        return std('_2', at, 2);
      }
      return rest(3) === '__2' ? std('__2', at, 3) : undefined;
    case '3':
      return std('3', at, 1);
    case '4':
      return std('4', at, 1);
    case '5':
      return std('5', at, 1);
    case 'P':
      return layout[at + 1] === 'M' ? std('PM', at, 2) : undefined;
    case 'p':
      return layout[at + 1] === 'm' ? std('pm', at, 2) : undefined;
    case '-':
      return firstPrefix(layout, at, NUMERIC_ZONES);
    case 'Z':
      return firstPrefix(layout, at, Z_ZONES);
    case '.':
    case ',':
      return fractionAt(layout, at);
    default:
      return undefined;
  }
}

/** splitLayout reads a layout into literals and elements; see the module comment. */
export function splitLayout(layout: string): LayoutElement[] {
  const out: LayoutElement[] = [];
  let literalStart = 0;
  let at = 0;
  while (at < layout.length) {
    const match = stdAt(layout, at);
    if (match === undefined) {
      at++;
      continue;
    }
    if (match.literalEnd > literalStart) out.push({ kind: 'literal', text: layout.slice(literalStart, match.literalEnd) });
    out.push(match.element);
    at = match.end;
    literalStart = at;
  }
  if (layout.length > literalStart) out.push({ kind: 'literal', text: layout.slice(literalStart) });
  return out;
}

/** LAYOUT_CACHE_SIZE bounds the layouts kept split; templates use a handful each. */
const LAYOUT_CACHE_SIZE = 256;
const layoutCache = new Map<string, readonly LayoutElement[]>();

/** layoutElements is splitLayout remembered per layout, since a template reuses its layouts on every line. */
export function layoutElements(layout: string): readonly LayoutElement[] {
  let elements = layoutCache.get(layout);
  if (elements === undefined) {
    elements = splitLayout(layout);
    if (layoutCache.size >= LAYOUT_CACHE_SIZE) layoutCache.clear();
    layoutCache.set(layout, elements);
  }
  return elements;
}
