/**
 * setLabel stores a label or tag in a plain object. A name of `__proto__` would otherwise set
 * the object's prototype instead of creating a property, silently losing the label (UTF-8
 * label names and OTLP attribute keys make such a name possible), so it is defined explicitly.
 */
export function setLabel(target: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__') {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[name] = value;
  }
}
