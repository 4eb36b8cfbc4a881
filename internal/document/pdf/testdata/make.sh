#!/bin/sh
# Rebuilds the PDFs the tests read, from tides.ms, with groff (its gropdf
# device, and tbl for the table) and qpdf: apt-get install groff qpdf.
set -e
cd "$(dirname "$0")"
groff -t -ms -Tpdf tides.ms > tides.pdf
# The same document, openable only with a password.
qpdf --encrypt secret secret 256 -- tides.pdf encrypted.pdf
