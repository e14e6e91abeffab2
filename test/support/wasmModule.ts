import asc from 'assemblyscript/asc';
import { expect } from 'vitest';

/**
 * expectCommittedModule compiles engine/wasm/<name>.ts as scripts/build-wasm.sh does and
 * checks that the base64 committed beside the loader is those bytes, so a source change
 * cannot ship without its module.
 */
export async function expectCommittedModule(name: string, committedBase64: string): Promise<void> {
  let compiled: Uint8Array | undefined;
  const { error, stderr } = await asc.main([`engine/wasm/${name}.ts`, '--config', 'engine/wasm/asconfig.json', '--outFile', `${name}.wasm`], {
    writeFile: (file, contents) => {
      if (file.endsWith('.wasm') && typeof contents !== 'string') compiled = contents;
    },
  });
  expect(error, stderr.toString()).toBeNull();
  expect(compiled).toBeDefined();
  // When this fails, run scripts/build-wasm.sh and commit engine/common/<name>Wasm.ts.
  expect(Buffer.from(compiled!).toString('base64')).toBe(committedBase64);
}
