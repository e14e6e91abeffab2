/**
 * The part of the WebAssembly API the engine's modules use. Node has it, but its type
 * declarations (like TypeScript's outside the DOM library) do not describe it, and a runtime
 * started with `--jitless` has none: callers then keep their JavaScript implementation.
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  /** grow adds `pages` of 64 KiB; views of the old buffer are detached afterwards. */
  grow(pages: number): number;
}

declare const WebAssembly:
  | {
      Module: new (bytes: Uint8Array) => object;
      Instance: new (module: object, imports: object) => { exports: object };
    }
  | undefined;

/** WASM_PAGE_BYTES is the unit memory grows by. */
export const WASM_PAGE_BYTES = 65_536;

/** instantiateWasm compiles and instantiates a module given in base64 (no imports), or returns undefined without WebAssembly. */
export function instantiateWasm<Exports>(base64: string): Exports | undefined {
  if (typeof WebAssembly === 'undefined') return undefined;
  const module = new WebAssembly.Module(Buffer.from(base64, 'base64'));
  return new WebAssembly.Instance(module, {}).exports as unknown as Exports;
}
