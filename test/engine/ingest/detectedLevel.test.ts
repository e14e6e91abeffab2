import { describe, expect, it } from 'vitest';
import { detectLevel, levelFromLine, normalizeDetectedLevel } from '../../../engine/ingest/detectedLevel.js';

describe('detected_level as Loki derives it', () => {
  it('takes a level-named label first, then metadata, normalizing known names only', () => {
    expect(detectLevel({ app: 'a', lvl: 'WARNING' }, { level: 'debug' }, 'error: x')).toBe('warn');
    expect(detectLevel({ app: 'a' }, { Severity: 'Err' }, 'info')).toBe('error');
    expect(detectLevel({ app: 'a', log_level: 'CRITICAL' }, null, '')).toBe('critical');
    expect(detectLevel({ app: 'a', severity: 'loud' }, null, 'info')).toBe('loud');
    expect(normalizeDetectedLevel('Information')).toBe('info');
  });

  it('maps an OTLP severity number carried as metadata', () => {
    expect(detectLevel({ app: 'a' }, { severity_number: '17' }, 'debug')).toBe('error');
    expect(detectLevel({ app: 'a' }, { severity_number: '0' }, 'debug')).toBe('unknown');
    expect(detectLevel({ app: 'a' }, { severity_number: 'x' }, 'debug')).toBe('info');
  });

  it('reads JSON lines two object levels deep, never inside arrays or string values', () => {
    expect(levelFromLine('{"msg":"info here","level":"ERROR"}')).toBe('error');
    expect(levelFromLine(' {"a":{"lvl":"dbg"}} ')).toBe('debug');
    expect(levelFromLine('{"a":{"b":{"level":"error"}}}')).toBe('unknown');
    expect(levelFromLine('{"a":[{"level":"error"}],"x":"y"}')).toBe('unknown');
    expect(levelFromLine('{"msg":"\\"level\\":\\"error\\"","SeverityText":"Warn"}')).toBe('warn');
    // A value that is no level falls through to the keywords of the whole line.
    expect(levelFromLine('{"level":"loud","msg":"WARNING disk"}')).toBe('warn');
    expect(levelFromLine('{"level": 3}')).toBe('unknown');
  });

  it('reads logfmt lines by the preferred key, whatever its case or position', () => {
    expect(levelFromLine('ts=1 lvl=warn level=error msg=x')).toBe('error');
    expect(levelFromLine('ts=1 SEVERITY="Debug" msg="info"')).toBe('debug');
    expect(levelFromLine('ts=1 msg="no level" user=info')).toBe('info');
  });

  it('falls back to keywords in Loki order, else unknown', () => {
    expect(levelFromLine('GET /x [ERROR] failed')).toBe('error');
    expect(levelFromLine('error without a bracket')).toBe('unknown');
    expect(levelFromLine('[error] but also info')).toBe('info');
    expect(levelFromLine('a warning')).toBe('warn');
    expect(levelFromLine('CRITICAL: disk')).toBe('critical');
    expect(levelFromLine('DEBUG dump')).toBe('debug');
    expect(levelFromLine('')).toBe('unknown');
  });
});
