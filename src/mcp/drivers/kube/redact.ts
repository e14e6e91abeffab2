import { stringify } from 'yaml';

/**
 * What an object looks like when shown to an agent. Secret values must never reach a model's
 * context (they end up in transcripts and logs), and managedFields is bookkeeping for
 * server-side apply that often outweighs the rest of the object while telling nothing about it.
 */

export const REDACTED = '<redacted>';

/**
 * LAST_APPLIED holds the whole manifest `kubectl apply` last sent; for a Secret that includes
 * its data in clear text, so it is redacted with the values.
 */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Obj = Record<string, unknown>;

/** redactObject returns a copy of `obj` without managedFields and, for a Secret, without its values. */
export function redactObject(obj: Obj): Obj {
  const copy = structuredClone(obj);
  const meta = asObj(copy.metadata);
  if (meta) delete meta.managedFields;
  if (copy.kind === 'Secret') {
    for (const field of ['data', 'stringData']) {
      const values = asObj(copy[field]);
      if (values) for (const key of Object.keys(values)) values[key] = REDACTED;
    }
    const annotations = asObj(meta?.annotations);
    if (annotations && LAST_APPLIED in annotations) annotations[LAST_APPLIED] = REDACTED;
  }
  return copy;
}

/** toYaml prints an object as kubectl does with `-o yaml`: block style, no line folding. */
export function toYaml(obj: Obj): string {
  return stringify(obj, { lineWidth: 0, aliasDuplicateObjects: false });
}

function asObj(value: unknown): Obj | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}
