import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { OrgGate } from '../../src/query/stream.js';

describe('OrgGate', () => {
  it('bounds concurrent queries per org and frees slots on release (once)', () => {
    const gate = new OrgGate(2);
    const a = gate.acquire('org-1');
    gate.acquire('org-1');
    expect(() => gate.acquire('org-1')).toThrow(ApiError);
    expect(() => gate.acquire('org-2')).not.toThrow();
    a();
    a();
    expect(() => gate.acquire('org-1')).not.toThrow();
    expect(() => gate.acquire('org-1')).toThrow(/too many concurrent queries/);
  });

  it('refuses every org with 429 and Retry-After while the workers are saturated', () => {
    const gate = new OrgGate(10);
    try {
      gate.acquire('org-1', true);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('RATE_LIMITED');
      expect((err as ApiError).headers['retry-after']).toBe('2');
    }
  });
});
