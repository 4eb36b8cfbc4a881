#!/bin/sh
# make.sh rebuilds the test documents from their Markdown sources beside
# it, with pandoc (Debian's package "pandoc"). The documents are kept in
# the repository, so that the tests need no pandoc; run this when a
# source changes, and commit both. SOURCE_DATE_EPOCH fixes the dates
# pandoc writes (the created and modified properties, the zip's times),
# so that the same sources make the same files.
set -eu
export SOURCE_DATE_EPOCH=1709640000 # 2024-03-05T12:00:00Z
cd "$(dirname "$0")"
for src in features plain; do
	pandoc --from markdown --to docx --output "$src.docx" "$src.md"
done
