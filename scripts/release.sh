#!/usr/bin/env bash
# Release build: static binaries (CGO_ENABLED=0) stamped with the version and
# the commit, shell completions, man pages, one tarball per platform and
# SHA256SUMS. Offline: it needs only Go and this checkout.
#
#   scripts/release.sh                      # dist/, the three release platforms
#   TARGETS="linux/amd64" OUT=/tmp/rel scripts/release.sh
#   VERSION=v1.2.0 scripts/release.sh       # default: git describe
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=${TARGETS:-"linux/amd64 linux/arm64 darwin/arm64"}
OUT=${OUT:-dist}
COMMIT=$(git rev-parse HEAD)
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo "$COMMIT")}
case "$VERSION" in *[!A-Za-z0-9._+-]*) echo "release: VERSION $VERSION: letters, digits and ._+- only" >&2; exit 2;; esac

rm -rf "$OUT"
mkdir -p "$OUT/share/completions" "$OUT/share/man/man1"
ldflags="-s -w -X ilinkdash/cli.stampVersion=$VERSION -X ilinkdash/cli.stampCommit=$COMMIT"

# Completions and man pages come from the host's own build of the same tree
# (with the same flags, so a host target reuses it).
export CGO_ENABLED=0
hostos=$(go env GOOS) hostarch=$(go env GOARCH)
host="$OUT/.host/ilinkdash"
go build -trimpath -ldflags "$ldflags" -o "$host" .
for sh in bash zsh fish; do
  "$host" completion "$sh" > "$OUT/share/completions/ilinkdash.$sh"
done
"$host" gen-man "$OUT/share/man/man1"

for target in $TARGETS; do
  os=${target%/*} arch=${target#*/}
  name="ilinkdash-$VERSION-$os-$arch"
  dir="$OUT/$name"
  mkdir -p "$dir"
  if [ "$os/$arch" = "$hostos/$hostarch" ]; then
    cp "$host" "$dir/ilinkdash"
  else
    GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$dir/ilinkdash" .
  fi
  cp -R "$OUT/share/completions" "$OUT/share/man" README.md "$dir/"
  tar -C "$OUT" -czf "$OUT/$name.tar.gz" "$name"
  echo "release: $OUT/$name.tar.gz"
done
rm -rf "$OUT/.host"

sum="sha256sum"
command -v sha256sum >/dev/null || sum="shasum -a 256"
(cd "$OUT" && $sum ./*.tar.gz > SHA256SUMS)
echo "release: $OUT/SHA256SUMS ($VERSION, $COMMIT)"
