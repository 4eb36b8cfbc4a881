#!/usr/bin/env bash
# Rebuilds the PDF development set (docs/pdf-dev-set.md) from Debian's
# packages into bench/testdata/pdfdev, which git ignores:
#
#	bash bench/pdfdev/build.sh
#
# It downloads each package of bench/pdfdev/manifest.tsv at the version
# the manifest pins (apt-get download, into debs/, kept as a cache),
# unpacks it with dpkg-deb into pkgs/ (nothing is installed), and writes
# each document's PDF and truth (pdf/, truth/) with the truth program. A
# package whose pinned version Debian no longer serves is taken at the
# version it serves, with a warning: its truth is still made from the same
# package's HTML, but the figures may move.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bench=$(dirname "$here")
out="$bench/testdata/pdfdev"
mkdir -p "$out/debs" "$out/pkgs"

for tool in apt-get dpkg-deb go; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "build.sh: needs $tool (a Debian system with Go)" >&2
		exit 1
	fi
done

# quiet drops apt's warning that root downloads without its sandbox.
quiet() { grep -v '^W: Download is performed unsandboxed' || true; }

# Each package once, with the version the manifest pins.
mapfile -t wanted < <(awk -F'\t' 'NR > 1 { print $5 "\t" $7; print $6 "\t" $7 }' "$here/manifest.tsv" | sort -u)

: >"$out/versions.tsv"
for line in "${wanted[@]}"; do
	pkg=${line%%$'\t'*}
	version=${line#*$'\t'}
	# A .deb's file name holds its version with the epoch's ":" as "%3a".
	file_version=${version/:/%3a}
	deb=$(ls "$out/debs/${pkg}_${file_version}_"*.deb 2>/dev/null | head -n 1 || true)
	got=$version
	if [ -z "$deb" ]; then
		echo "== downloading $pkg=$version"
		if ! (cd "$out/debs" && apt-get download -q "$pkg=$version" 2>&1 | quiet); then
			echo "build.sh: $pkg $version is not served (run apt-get update?); taking the version Debian serves" >&2
			(cd "$out/debs" && apt-get download -q "$pkg" 2>&1 | quiet) || {
				echo "build.sh: cannot download $pkg (run apt-get update first)" >&2
				exit 1
			}
			got=$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')
		fi
		deb=$(ls -t "$out/debs/${pkg}_"*.deb | head -n 1)
	fi
	rm -rf "$out/pkgs/$pkg"
	mkdir -p "$out/pkgs/$pkg"
	dpkg-deb -x "$deb" "$out/pkgs/$pkg"
	printf '%s\t%s\n' "$pkg" "$got" >>"$out/versions.tsv"
done

go -C "$bench" run ./pdfdev/truth -manifest pdfdev/manifest.tsv -pkgs testdata/pdfdev/pkgs -out testdata/pdfdev
echo "The set is in $out; measure it with: go -C bench test -run TestPDFDev -v"
