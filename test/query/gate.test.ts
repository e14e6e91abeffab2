import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { OrgGate, type GateLimit } from '../../src/query/stream.js';

/** limitOf is a concurrency limit as an org's settings give it, with where it comes from. */
function limitOf(maxConcurrentQueries: number, origin = 'SVC_MAX_QUERIES_PER_ORG'): GateLimit {
  return { maxConcurrentQueries, originOf: () => origin };
}

describe('OrgGate', () => {
  it('bounds concurrent queries per org and frees slots on release (once)', () => {
    const gate = new OrgGate();
    const two = limitOf(2);
    const a = gate.acquire('org-1', false, two);
    gate.acquire('org-1', false, two);
    expect(() => gate.acquire('org-1', false, two)).toThrow(ApiError);
    expect(() => gate.acquire('org-2', false, two)).not.toThrow();
    a();
    a();
    expect(() => gate.acquire('org-1', false, two)).not.toThrow();
    expect(() => gate.acquire('org-1', false, two)).toThrow(/too many concurrent queries for this org \(limit 2: SVC_MAX_QUERIES_PER_ORG\)/);
  });

  it('applies the limit each acquire is given, so a changed org limit holds from the next query', () => {
    const gate = new OrgGate();
    gate.acquire('org-1', false, limitOf(1));
    expect(() => gate.acquire('org-1', false, limitOf(1))).toThrow(/limit 1/);
    const raised = limitOf(3, "this org's maxConcurrentQueries");
    gate.acquire('org-1', false, raised);
    gate.acquire('org-1', false, raised);
    expect(() => gate.acquire('org-1', false, raised)).toThrow(/limit 3: this org's maxConcurrentQueries/);
  });

  it('refuses every org with 429 and Retry-After while the workers are saturated', () => {
    const gate = new OrgGate();
    try {
      gate.acquire('org-1', true, limitOf(10));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('RATE_LIMITED');
      expect((err as ApiError).headers['retry-after']).toBe('2');
    }
  });
});
