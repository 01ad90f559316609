#!/usr/bin/env bash
# Builds the local image of the real tier's pgvector backend (`amnesia-pgvector:local`
# unless $1 names another tag) without any registry: `FROM scratch` with the PostgreSQL +
# pgvector binaries scripts/install-pgvector installed (AMNESIA_PG_BIN), the shared
# libraries `ldd` names, and a data directory `initdb` made (role `amnesia`, trust
# authentication: the port is published on 127.0.0.1 only). Runs as the unprivileged
# user 65534: PostgreSQL refuses root.
set -euo pipefail
tag="${1:-amnesia-pgvector:local}"
bin="${AMNESIA_PG_BIN:-/opt/amnesia-pg/pgserver/pginstall/bin}"
if ! docker info >/dev/null 2>&1; then
  echo "build-pgvector-image: no Docker engine answers: install docker.io and start dockerd (or run the real tier with AMNESIA_REAL_PROVIDER=process)" >&2
  exit 4
fi
if [ ! -x "$bin/postgres" ]; then
  echo "build-pgvector-image: no postgres in $bin: run scripts/install-pgvector or set AMNESIA_PG_BIN" >&2
  exit 4
fi
install="$(readlink -f "$bin/..")"
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
mkdir -p "$context/rootfs/pg" "$context/rootfs/etc" "$context/rootfs/tmp"
cp -a "$install/bin" "$install/lib" "$install/share" "$context/rootfs/pg/"
rm -f "$context/rootfs/pg/lib/"*.a
# Every library the loader resolves for the server and its extensions, and the loader.
for object in "$install/bin/postgres" "$install/bin/initdb" "$install/lib/postgresql/"*.so; do
  ldd "$object" 2>/dev/null | grep -o '/[^ ]*' || true
done | sort -u | while read -r lib; do
  mkdir -p "$context/rootfs$(dirname "$lib")"
  cp -L "$lib" "$context/rootfs$lib"
done
echo 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' > "$context/rootfs/etc/passwd"
echo 'nogroup:x:65534:' > "$context/rootfs/etc/group"
chmod 1777 "$context/rootfs/tmp"
# The data directory, made on the host by the same user the container runs as.
install -d -o 65534 -g 65534 -m 0700 "$context/data"
initdb=("$bin/initdb" -D "$context/data/pgdata" -A trust -U amnesia --no-locale -E UTF8 --no-sync)
if [ "$(id -u)" = 0 ]; then
  chmod a+rx "$context"
  setpriv --reuid=65534 --regid=65534 --clear-groups "${initdb[@]}" >/dev/null
else
  "${initdb[@]}" >/dev/null
fi
# Clients reach the container through Docker's bridge, not from its loopback: trust them
# too (the port is published on the host's 127.0.0.1 only).
echo 'host all all 0.0.0.0/0 trust' >> "$context/data/pgdata/pg_hba.conf"
cat > "$context/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs /
COPY --chown=65534:65534 data /data
USER 65534:65534
EXPOSE 5432
ENTRYPOINT ["/pg/bin/postgres", "-D", "/data/pgdata"]
CMD ["-c", "listen_addresses=*", "-c", "unix_socket_directories="]
DOCKERFILE
if ! docker build --quiet --label dev.amnesia.image=pgvector --tag "$tag" "$context" \
    >/dev/null 2>"$context.err"; then
  cat "$context.err" >&2
  rm -f "$context.err"
  exit 1
fi
rm -f "$context.err"
echo "built $tag from $install ($("$bin/postgres" --version))"
