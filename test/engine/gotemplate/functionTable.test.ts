import { describe, expect, it } from 'vitest';
import { GO_TEMPLATE_BUILTINS, LOKI_TEMPLATE_FUNCTIONS, TEMPLATE_FUNCTIONS, parseTemplate } from '../../../engine/gotemplate/index.js';
import { TEMPLATE_FUNCTION_DEFS } from '../../../engine/gotemplate/functionTable.js';

describe('the template function table', () => {
  it('lists exactly the names it defines', () => {
    const defined = [...TEMPLATE_FUNCTION_DEFS.keys()].sort();
    expect([...TEMPLATE_FUNCTIONS].sort()).toEqual(defined);
    expect([...GO_TEMPLATE_BUILTINS, ...LOKI_TEMPLATE_FUNCTIONS].sort()).toEqual(defined);
    expect(new Set(defined).size).toBe(GO_TEMPLATE_BUILTINS.length + LOKI_TEMPLATE_FUNCTIONS.length);
  });

  it('holds text/template\'s built-ins and Loki\'s map', () => {
    expect([...GO_TEMPLATE_BUILTINS].sort()).toEqual(
      ['and', 'call', 'eq', 'ge', 'gt', 'html', 'index', 'js', 'le', 'len', 'lt', 'ne', 'not', 'or', 'print', 'printf', 'println', 'slice', 'urlquery'],
    );
    for (const name of ['ToUpper', 'regexReplaceAll', 'toDateInZone', 'b64enc', 'addf', 'default', '__line__', '__timestamp__']) {
      expect(LOKI_TEMPLATE_FUNCTIONS).toContain(name);
    }
    expect(LOKI_TEMPLATE_FUNCTIONS).toHaveLength(67);
  });

  it('makes the parser reject a name it does not define, at its position', () => {
    const result = parseTemplate('{{ .a | env }}');
    expect(result).toEqual({ ok: false, message: 'function "env" not defined', offset: 8 });
    expect(parseTemplate('{{ .a | upper }}').ok).toBe(true);
  });
});
