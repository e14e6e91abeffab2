/**
 * Log lines of every shape a parser meets, generated from a seed: JSON objects with escapes,
 * nested objects and arrays, literals, odd keys, keys naming stream labels, repeated keys,
 * whitespace and malformed documents; logfmt pairs with quoted, escaped, empty and broken
 * values. Tests that compare two ways of reading lines run them over these.
 */
import type { SeededRandom } from './seededRandom.js';

const KEYS = ['route', 'status', 'level', 'msg', 'app', 'route_extracted', 'user-id', '@ts', '1st', 'a b', '', 'ro\\"ute', 'status '];
const STRINGS = ['/r1', '', 'info', 'a \\"quoted\\" word', 'tab\\there', '\\u0041BC', 'x,y}z', '  padded  ', '{not:object}'];

function value(random: SeededRandom, depth: number): string {
  switch (random.int(0, 9)) {
    case 0:
    case 1:
    case 2:
      return `"${random.pick(STRINGS)}"`;
    case 3:
      return random.pick(['200', '503', '-3.5', '1e3', '0', '12abc']);
    case 4:
      return random.pick(['true', 'false', 'null']);
    case 5:
      return depth < 2 ? object(random, depth + 1, random.int(0, 3)) : '{}';
    case 6:
      return random.pick(['[1,"a",{"b":2}]', '[]', '[ "x" ]']);
    case 7:
      return random.pick(['tru', 'nul', 'yes', '"unterminated']);
    default:
      return `"${random.pick(['/r2', '/r3', 'error', 'warn'])}"`;
  }
}

function space(random: SeededRandom): string {
  return random.chance(0.85) ? '' : random.pick([' ', '  ', '\t', '\n', ' \r\n ']);
}

function object(random: SeededRandom, depth: number, members: number): string {
  const parts: string[] = [];
  for (let m = 0; m < members; m++) parts.push(`${space(random)}"${random.pick(KEYS)}"${space(random)}:${space(random)}${value(random, depth)}${space(random)}`);
  return `{${parts.join(',')}${members === 0 ? space(random) : ''}}`;
}

/** jsonLine is a JSON object line, now and then malformed or not an object at all. */
export function jsonLine(random: SeededRandom): string {
  const text = `${space(random)}${object(random, 0, random.int(0, 6))}`;
  switch (random.int(0, 14)) {
    case 0:
      return text.slice(0, random.int(0, text.length));
    case 1:
      return text.replace(':', '');
    case 2:
      return text.replace('}', ',}');
    case 3:
      return random.pick(['plain text', '[1,2]', '"just a string"', '', '   ']);
    default:
      return text;
  }
}

const LOGFMT_KEYS = ['route', 'status', 'level', 'msg', 'app', 'route_extracted', 'user.id', '1st', 'ts'];
const LOGFMT_VALUES = ['/r1', '200', '503', '', '"quoted text"', '"with \\"escape\\""', '""', '"unterminated', 'a=b', 'x"y', 'error'];

/** logfmtLine is a line of pairs, bare keys and now and then malformed pieces. */
export function logfmtLine(random: SeededRandom): string {
  const parts: string[] = [];
  const pairs = random.int(0, 7);
  for (let k = 0; k < pairs; k++) {
    switch (random.int(0, 11)) {
      case 0:
        parts.push(random.pick(LOGFMT_KEYS));
        break;
      case 1:
        parts.push(random.pick(['=v', 'k"x=1', '="q"']));
        break;
      default:
        parts.push(`${random.pick(LOGFMT_KEYS)}=${random.pick(LOGFMT_VALUES)}`);
    }
  }
  const sep = () => random.pick([' ', ' ', ' ', '  ', '\t']);
  return `${random.chance(0.2) ? sep() : ''}${parts.join(sep())}${random.chance(0.2) ? sep() : ''}`;
}

