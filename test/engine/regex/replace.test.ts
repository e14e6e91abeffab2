import { describe, expect, it } from 'vitest';
import { compileRegex } from '../../../engine/regex/index.js';

describe('expand (label_replace semantics)', () => {
  it('substitutes numbered and named groups from a full match', () => {
    const re = compileRegex('(?P<host>[^:]+):(?P<port>\\d+)', { anchored: true });
    const m = re.execIndices('db-1:5432');
    expect(m).not.toBeNull();
    expect(re.expand('$1', 'db-1:5432', m!)).toBe('db-1');
    expect(re.expand('${port}/${host}', 'db-1:5432', m!)).toBe('5432/db-1');
    expect(re.expand('$host-$port', 'db-1:5432', m!)).toBe('db-1-5432');
  });

  it('takes the longest name after $, so $1x names a group "1x"', () => {
    const re = compileRegex('(a)(b)');
    const m = re.execIndices('ab')!;
    expect(re.expand('$1x', 'ab', m)).toBe('');
    expect(re.expand('${1}x', 'ab', m)).toBe('ax');
    expect(re.expand('$2$1', 'ab', m)).toBe('ba');
  });

  it('leaves malformed references literal and expands missing groups to nothing', () => {
    const re = compileRegex('(a)');
    const m = re.execIndices('a')!;
    expect(re.expand('$', 'a', m)).toBe('$');
    expect(re.expand('${1', 'a', m)).toBe('${1');
    expect(re.expand('$$1', 'a', m)).toBe('$1');
    expect(re.expand('$9|$nope|$01', 'a', m)).toBe('||');
    expect(re.expand('cost: $!', 'a', m)).toBe('cost: $!');
  });

  it('expands a group that did not participate to nothing', () => {
    const re = compileRegex('(a)|(b)');
    const m = re.execIndices('b')!;
    expect(re.expand('[$1][$2]', 'b', m)).toBe('[][b]');
  });
});

describe('replaceAll (regexReplaceAll semantics)', () => {
  it('replaces every non-overlapping match', () => {
    expect(compileRegex('\\d+').replaceAll('a1b22c333', '#')).toBe('a#b#c#');
    expect(compileRegex('(\\w+)=(\\w+)').replaceAll('a=1 b=2', '$2=$1')).toBe('1=a 2=b');
  });

  it('does not replace an empty match right after a previous match', () => {
    expect(compileRegex('a*').replaceAll('baaac', '-')).toBe('-b-c-');
    expect(compileRegex('').replaceAll('ab', '-')).toBe('-a-b-');
  });

  it('steps over surrogate pairs as one character', () => {
    expect(compileRegex('').replaceAll('😀x', '.')).toBe('.😀.x.');
  });

  it('sees the text before the search position for assertions', () => {
    expect(compileRegex('^a').replaceAll('aaa', 'X')).toBe('Xaa');
    expect(compileRegex('\\ba').replaceAll('aa a', 'X')).toBe('Xa X');
  });

  it('returns the input unchanged when nothing matches', () => {
    const input = 'nothing to see';
    expect(compileRegex('\\d').replaceAll(input, 'X')).toBe(input);
  });
});
