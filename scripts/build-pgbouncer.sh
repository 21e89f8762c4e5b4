#!/usr/bin/env bash
# Builds PgBouncer 1.24.1, the version Debian 13 ships, from Debian's own source package (the upstream
# tarball and Debian's patches, security fixes included, both checked against the checksums Debian
# publishes), into /opt/pgbouncer-1.24.1. Debian 12 ships PgBouncer 1.18, which cannot keep prepared
# statements in transaction mode; the tests and bench:workers of that mode need 1.21 or later
# (docs/decisions/1347-pgbouncer-prepared-statements.md). Does nothing when the build is already there.
# Needs root (apt-get for the build dependencies, /opt); about 30 s on two cores.
set -euo pipefail

PREFIX=/opt/pgbouncer-1.24.1
[ -x "$PREFIX/bin/pgbouncer" ] && exit 0

POOL=http://deb.debian.org/debian/pool/main/p/pgbouncer
ORIG=pgbouncer_1.24.1.orig.tar.gz
ORIG_SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0
DEBIAN=pgbouncer_1.24.1-1+deb13u2.debian.tar.xz
DEBIAN_SHA256=2325bcaa2e71919d399b9e5aef5b94ff988fc1f1d296908c3937b682b7be5cbb

deps="gcc make pkg-config libevent-dev libssl-dev libc-ares-dev"
# shellcheck disable=SC2086
if ! dpkg -s $deps >/dev/null 2>&1; then
  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $deps >/dev/null 2>&1) ||
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $deps >/dev/null)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
curl -fsS --retry 3 -o "$ORIG" "$POOL/$ORIG"
curl -fsS --retry 3 -o "$DEBIAN" "$POOL/$DEBIAN"
printf '%s  %s\n%s  %s\n' "$ORIG_SHA256" "$ORIG" "$DEBIAN_SHA256" "$DEBIAN" | sha256sum -c --quiet -
tar xzf "$ORIG"
tar xJf "$DEBIAN" -C pgbouncer-1.24.1
cd pgbouncer-1.24.1
while read -r patch; do
  case "$patch" in "" | \#*) continue ;; esac
  patch -p1 -s < "debian/patches/$patch"
done < debian/patches/series
./configure --prefix="$PREFIX" --without-systemd >/dev/null
make -j"$(nproc)" >/dev/null
make install >/dev/null
"$PREFIX/bin/pgbouncer" --version | head -1
