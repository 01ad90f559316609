#!/usr/bin/env bash
# Builds the local image amnesia's real tier runs (`amnesia-redis:local` unless $1 names
# another tag) without any registry: `FROM scratch` with the host's `redis-server` and the
# shared libraries `ldd` names. Needs a running Docker engine and `redis-server` on PATH.
set -euo pipefail
tag="${1:-amnesia-redis:local}"
if ! docker info >/dev/null 2>&1; then
  echo "build-redis-image: no Docker engine answers: install docker.io and start dockerd (or run the real tier with AMNESIA_REAL_PROVIDER=process)" >&2
  exit 4
fi
if ! command -v redis-server >/dev/null 2>&1; then
  echo "build-redis-image: no redis-server on PATH: apt-get install redis-server" >&2
  exit 4
fi
server="$(readlink -f "$(command -v redis-server)")"
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
mkdir -p "$context/usr/bin" "$context/data" "$context/tmp"
cp "$server" "$context/usr/bin/redis-server"
# Every library the loader resolves, and the loader itself, at the paths it expects.
ldd "$server" | grep -o '/[^ ]*' | while read -r lib; do
  mkdir -p "$context$(dirname "$lib")"
  cp -L "$lib" "$context$lib"
done
cat > "$context/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY . /
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["/usr/bin/redis-server"]
CMD ["--bind", "0.0.0.0", "--protected-mode", "no", "--save", ""]
DOCKERFILE
# The legacy builder needs no BuildKit and no registry (FROM scratch); it warns that it is
# deprecated, which says nothing about this build.
if ! docker build --quiet --label dev.amnesia.image=redis --tag "$tag" "$context" \
    >/dev/null 2>"$context.err"; then
  cat "$context.err" >&2
  rm -f "$context.err"
  exit 1
fi
rm -f "$context.err"
echo "built $tag from $server ($(redis-server --version | cut -d' ' -f3))"
