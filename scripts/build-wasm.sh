#!/usr/bin/env bash
# Compiles the AssemblyScript sources under engine/wasm (options in engine/wasm/asconfig.json)
# and writes each module's bytes, in base64, into the TypeScript module that loads it
# (engine/common/<name>Wasm.ts): the engine then needs no file beside its JavaScript, and
# worker threads instantiate the module from memory. Run it after changing engine/wasm;
# test/engine/floatText.test.ts fails while the committed bytes are not what the source
# compiles to.
#
#   scripts/build-wasm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for source in engine/wasm/*.ts; do
  name=$(basename "$source" .ts)
  constant=$(echo "$name" | sed -E 's/([A-Z])/_\1/g' | tr '[:lower:]' '[:upper:]')_WASM
  npx asc "$source" --config engine/wasm/asconfig.json --outFile "$out/$name.wasm"
  {
    echo "/** The module compiled from engine/wasm/$name.ts by scripts/build-wasm.sh, in base64; do not edit. */"
    echo "export const $constant = '$(base64 -w0 "$out/$name.wasm")';"
  } > "engine/common/${name}Wasm.ts"
  echo "engine/common/${name}Wasm.ts: $(stat -c %s "$out/$name.wasm") bytes of WebAssembly"
done
