import { describe, expect, it } from 'vitest';
import { runPipeline } from './helpers.js';

function keeps(stages: string, line: string): boolean {
  return runPipeline(stages, line) !== null;
}

describe('line filters', () => {
  it.each([
    ['|= "err"', 'req err=connrefused', true],
    ['|= "err"', 'req ok', false],
    ['|= "ERR"', 'req err', false],
    ['|= ""', 'anything', true],
    ['!= "err"', 'req ok', true],
    ['!= "err"', 'req err', false],
    ['!= ""', 'anything', false],
    ['|~ "code=5.."', 'code=503 down', true],
    ['|~ "code=5.."', 'CODE=503 down', false],
    ['|~ "(?i)code=5.."', 'CODE=503 down', true],
    ['!~ "code=5.."', 'code=200', true],
    ['|~ "^a.c$"', 'a\nc', false],
    ['|~ "(?s)^a.c$"', 'a\nc', true],
    ['|> "GET <_> 200"', 'GET /api 200', true],
    ['|> "GET <_> 200"', 'POST /api 200', false],
    ['|> "GET /api"', 'GET /api 200', false],
    ['|> "<_> 200"', 'GET /api 200', true],
    ['!> "GET <_> 200"', 'POST /api 500', true],
    ['|= "error" or "warn"', 'level=warn', true],
    ['|= "error" or "warn"', 'level=info', false],
    ['!= "error" or "warn"', 'level=warn', false],
    ['!= "error" or "warn"', 'level=info', true],
    ['|~ "err.r" or "wa.n"', 'level=warn', true],
    ['|= "error" |= "status=500"', 'error status=500', true],
    ['|= "error" |= "status=500"', 'error status=200', false],
    ['|= "error" != "status=500"', 'error status=200', true],
  ])('%s on %j keeps=%s', (stages, line, expected) => {
    expect(keeps(stages, line)).toBe(expected);
  });

  it.each([
    ['|= ip("192.168.1.0/24")', 'src 192.168.1.10 ok', true],
    ['|= ip("192.168.1.0/24")', 'src 10.0.0.9 ok', false],
    ['|= ip("192.168.1.0/24")', 'no ip here', false],
    ['!= ip("192.168.1.0/24")', 'no ip here', true],
    ['|= ip("10.0.0.1-10.0.0.9")', 'from 10.0.0.5:443', true],
    ['|= ip("10.0.0.1-10.0.0.9")', 'from 10.0.0.50:443', false],
    ['|= ip("8.8.8.8")', 'dns=8.8.8.8', true],
    ['|= ip("2001:db8::/32")', 'client 2001:db8::1 connected', true],
    ['|= ip("2001:db8::/32")', 'client 2001:db9::1 connected', false],
    ['|= ip("192.168.1.0/24") or "special"', 'special no ip', true],
    ['!= ip("192.168.1.0/24") or ip("10.0.0.0/8")', 'src 10.1.2.3', false],
  ])('%s on %j keeps=%s', (stages, line, expected) => {
    expect(keeps(stages, line)).toBe(expected);
  });

  it('finds a needle at the end of a 1 MB line', () => {
    const line = 'x'.repeat(1 << 20) + ' needle';
    expect(keeps('|= "needle"', line)).toBe(true);
    expect(keeps('|~ "need(le|ful)$"', line)).toBe(true);
    expect(keeps('|= "absent"', line)).toBe(false);
  });

  it('matches text around replacement characters from undecodable bytes', () => {
    const line = new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0xfe, 0x62, 0x20, 0x6f, 0x6b]));
    expect(line).toBe('a\ufffd\ufffdb ok');
    expect(keeps('|= "b ok"', line)).toBe(true);
    expect(keeps('|= "\ufffd"', line)).toBe(true);
    expect(keeps('|~ "a.+b"', line)).toBe(true);
  });
});
