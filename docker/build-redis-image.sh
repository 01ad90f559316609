#!/usr/bin/env bash
# Builds the local image amnesia's real tier runs (`amnesia-redis:local` unless $1 names
# another tag) without any registry: `FROM scratch` with the host's `redis-server` and the
# shared libraries `ldd` names. Needs a running Docker engine and `redis-server` on PATH.
set -euo pipefail
tag="${1:-amnesia-redis:local}"
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
docker build --quiet --label dev.amnesia.image=redis --tag "$tag" "$context" > /dev/null
echo "built $tag from $server ($(redis-server --version | cut -d' ' -f3))"
