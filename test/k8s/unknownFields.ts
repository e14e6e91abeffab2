import * as k8s from '@kubernetes/client-node';

/**
 * unknownFields lists the fields of a manifest object that its Kubernetes type does not have
 * (`readinesProbe`, `containerPorts`): the OpenAPI schemas allow any extra field, so a typo
 * passes schema validation and the API server drops or refuses it only at apply time. The
 * field lists come from the generated models of the Kubernetes client (each model's attribute
 * type map), walked down the object by their declared types.
 */
export function unknownFields(obj: Record<string, unknown>): string[] {
  const version = String(obj.apiVersion).split('/').pop()!;
  const root = `${version[0].toUpperCase()}${version.slice(1)}${String(obj.kind)}`;
  if (modelOf(root) === undefined) return [`no model ${root} for ${String(obj.apiVersion)} ${String(obj.kind)}`];
  const out: string[] = [];
  walk(obj, root, String(obj.kind), out);
  return out;
}

interface Attribute {
  baseName: string;
  type: string;
}
interface ModelClass {
  getAttributeTypeMap(): Attribute[];
}

function modelOf(type: string): ModelClass | undefined {
  const candidate = (k8s as unknown as Record<string, unknown>)[type] as Partial<ModelClass> | undefined;
  return typeof candidate?.getAttributeTypeMap === 'function' ? (candidate as ModelClass) : undefined;
}

function walk(value: unknown, type: string, at: string, out: string[]): void {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, array[1], `${at}[${i}]`, out));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, map[1], `${at}.${k}`, out);
    return;
  }
  const model = modelOf(type);
  // Scalars, quantities, int-or-string and free-form objects have no fields to check.
  if (model === undefined || typeof value !== 'object' || Array.isArray(value)) return;
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  for (const [key, v] of Object.entries(value)) {
    const fieldType = attributes.get(key);
    if (fieldType === undefined) out.push(`${at}.${key}`);
    else walk(v, fieldType, `${at}.${key}`, out);
  }
}
