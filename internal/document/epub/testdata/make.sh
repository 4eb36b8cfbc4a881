#!/bin/sh
# make.sh rebuilds the test books from their sources; run it from any
# directory. It needs pandoc, unzip and zip. The books are kept beside
# their sources, so the tests never run it.
#
# tides.epub is an EPUB 3 book (with a navigation document) made from
# tides.md. Its manifest and the entries of its archive are put in
# reverse order, so that only the spine gives the order of its chapters.
#
# lighthouse.epub is an EPUB 2 book (with an NCX) made from
# lighthouse.html and the metadata of lighthouse.yaml.
#
# Times are fixed (SOURCE_DATE_EPOCH for the metadata, the files' times
# in the archive), so that the same pandoc makes the same bytes.
set -eu
cd "$(dirname "$0")"
export SOURCE_DATE_EPOCH=1600000000 TZ=UTC LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# repack book dir order: zips the unpacked book in dir into book again,
# mimetype first and stored, then the other files in the order sort
# gives with the options in order ("" or "-r").
repack() {
	book=$1 dir=$2 order=$3
	find "$dir" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	rm -f "$book"
	out=$(pwd)/$book
	(
		cd "$dir"
		zip -q -X -0 "$out" mimetype
		find . -type f ! -name mimetype | sed 's|^\./||' | sort $order | zip -q -X -D -9 "$out" -@
	)
}

pandoc tides.md --from markdown --to epub3 --output "$tmp/tides.epub"
mkdir "$tmp/tides"
unzip -q "$tmp/tides.epub" -d "$tmp/tides"
awk '
	/<item / { items[n++] = $0; next }
	/<\/manifest>/ { for (i = n - 1; i >= 0; i--) print items[i] }
	{ print }
' "$tmp/tides/EPUB/content.opf" >"$tmp/content.opf"
mv "$tmp/content.opf" "$tmp/tides/EPUB/content.opf"
repack tides.epub "$tmp/tides" -r

pandoc lighthouse.html --from html --to epub2 --metadata-file lighthouse.yaml --output "$tmp/lighthouse.epub"
mkdir "$tmp/lighthouse"
unzip -q "$tmp/lighthouse.epub" -d "$tmp/lighthouse"
repack lighthouse.epub "$tmp/lighthouse" ""
