package pdf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/document/pdf/pdftest"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestRead reads a PDF that groff made (testdata/make.sh) and checks
// every part of its structure the package promises.
func TestRead(t *testing.T) {
	doc, err := Read(read(t, "tides.pdf"), extract.Options{URL: "https://tides.example.org/tides.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	md := doc.Markdown
	if doc.Title != "Tide Tables of the North Sea" || doc.Author != "Ada Lovelace" || doc.Description != "When the water rises" {
		t.Errorf("metadata: title %q, author %q, description %q", doc.Title, doc.Author, doc.Description)
	}
	if doc.Published.IsZero() || doc.Modified.IsZero() {
		t.Errorf("dates: published %v, modified %v", doc.Published, doc.Modified)
	}
	for _, want := range []string{
		// Headings: the outline's levels.
		"\n# 1\\. Introduction\n", "\n## 1.1. Reading the tables\n", "\n# 2\\. The long table\n",
		// A paragraph across three lines, its hyphenated word joined.
		"The tides of the North Sea rise twice a day. This paragraph is long enough to wrap across several lines of the page, so that a reader must join the lines back into one paragraph, and words broken with hyphens at the end of a line must be whole again in the output.\n",
		// A link where its annotation is.
		"says where to read more: [the tide office](https://tides.example.org/north-sea) explains the tables.",
		// A list, and the paragraph after it apart.
		"- the hour of high water;\n- the height of the tide in metres.\n\nA program reads them:",
		// A table, its columns from where its cells stand (the numbers
		// set to the right are one column with their heading).
		"The spring tides of three harbours:\n\n| Harbour | High water | Height (m) |\n| --- | --- | --- |\n| Aberdeen | 06:12 | 4.3 |\n| Dover | 11:02 | 6.7 |\n| Leith | 06:40 | 5.1 |\n\nNeap tides are lower.",
		// Code in a monospaced font, indented as printed.
		"```\nfor t in tides:\n    print(t.hour, t.height)\n```",
		// Each page's marker.
		"<!-- page 1 -->\n", "\n<!-- page 2 -->\n", "\n<!-- page 3 -->\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	// Running headers ("Tide Tables -2- North Sea") and page numbers are
	// left out; the text they stood beside is all there.
	if strings.Contains(md, "-2-") || strings.Contains(md, "Tide Tables -") || strings.Count(md, "Tide Tables") != 1 {
		t.Errorf("running headers kept:\n%s", md)
	}
	for i := 1; i <= 40; i++ {
		if !strings.Contains(md, "Harbour number "+strconv.Itoa(i)+" keeps its own gauge") {
			t.Errorf("harbour %d lost", i)
		}
	}
	if len(doc.Links) != 1 || doc.Links[0] != "https://tides.example.org/north-sea" {
		t.Errorf("links: %q", doc.Links)
	}
}

// TestGenerated reads the generated document: headings by size and
// weight where there is no outline, code by its font, footers dropped.
func TestGenerated(t *testing.T) {
	doc, err := Read(pdftest.Generate("", 3), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := doc.Markdown
	for _, want := range []string{
		"<!-- page 1 -->\n\n# Chapter 1 of the harbour\n\nLine 1 of paragraph 1 on page 1 tells of the tide, the gauge and the keeper who Line 2 of paragraph 1",
		"who reads them.\n\nLine 1 of paragraph 2 on page 1",
		"```\ngauge --read 2\n```",
		"<!-- page 3 -->\n\n# Chapter 3 of the harbour",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	if strings.Contains(md, "Harbour Book") {
		t.Errorf("running footer kept:\n%s", md)
	}
	if doc.Title != "Chapter 1 of the harbour" {
		t.Errorf("title from the first heading: %q", doc.Title)
	}
}

func TestEncrypted(t *testing.T) {
	_, err := Read(read(t, "encrypted.pdf"), extract.Options{})
	if !errors.Is(err, ErrEncrypted) {
		t.Fatalf("err = %v, want ErrEncrypted", err)
	}
	if !strings.Contains(err.Error(), "password") {
		t.Errorf("the error does not say why: %v", err)
	}
}

func TestNotAPDF(t *testing.T) {
	for name, raw := range map[string][]byte{
		"empty":      nil,
		"html":       []byte("<!DOCTYPE html><p>hello"),
		"header":     []byte("%PDF-1.7\n"),
		"garbage":    append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("\x00\xff garbage "), 1000)...),
		"no objects": []byte("%PDF-1.4\ntrailer << /Root 1 0 R >>\n%%EOF"),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Read(raw, extract.Options{}); !errors.Is(err, ErrNotPDF) {
				t.Fatalf("err = %v, want ErrNotPDF", err)
			}
		})
	}
}

// TestDamaged reads a PDF cut short, as a download that stopped: what is
// there is read (the engine repairs what it can), or refused plainly.
func TestDamaged(t *testing.T) {
	raw := read(t, "tides.pdf")
	for _, n := range []int{len(raw) / 4, len(raw) / 2, len(raw) - 100} {
		doc, err := Read(raw[:n], extract.Options{})
		if err != nil {
			if !errors.Is(err, ErrNotPDF) {
				t.Errorf("cut at %d: %v", n, err)
			}
			continue
		}
		if !strings.HasPrefix(doc.Markdown, "<!-- page 1 -->") && doc.Markdown != "" {
			t.Errorf("cut at %d: %q", n, doc.Markdown[:min(200, len(doc.Markdown))])
		}
	}
}

func TestLimits(t *testing.T) {
	t.Run("pages", func(t *testing.T) {
		_, err := Read(pdftest.Generate("", MaxPages+1), extract.Options{})
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "5001 pages") {
			t.Fatalf("err = %v, want ErrLimit naming the pages", err)
		}
	})
	t.Run("runs", func(t *testing.T) {
		// Pages of as many runs of text as a page may hold, each a
		// character apart, as a hostile document is read: the fifth
		// passes MaxSpans.
		r := &reader{}
		p := page{spans: make([]span, maxPageChars)}
		var err error
		for i := 0; i < MaxSpans/maxPageChars+1 && err == nil; i++ {
			err = r.add(p)
		}
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "runs of text") || len(r.pages) != MaxSpans/maxPageChars {
			t.Fatalf("err = %v after %d pages, want ErrLimit naming runs of text after %d", err, len(r.pages), MaxSpans/maxPageChars)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		raw := append([]byte("%PDF-1.4\n"), make([]byte, MaxInputBytes)...)
		if _, err := Read(raw, extract.Options{}); !errors.Is(err, ErrLimit) {
			t.Fatalf("err = %v, want ErrLimit", err)
		}
	})
}

func TestSniff(t *testing.T) {
	if !Sniff(read(t, "tides.pdf")) || !Sniff([]byte("\xEF\xBB\xBF  %PDF-1.7")) {
		t.Error("a PDF is not sniffed")
	}
	if Sniff([]byte("<html>%PDF-")[:5]) || Sniff(append(make([]byte, 1100), "%PDF-"...)) {
		t.Error("a PDF sniffed where none is")
	}
}

// TestBorrowError: an engine that failed to start says why; only a wait
// for one that ran out is the engine being busy.
func TestBorrowError(t *testing.T) {
	cause := errors.New("could not instantiate webassembly module")
	if err := borrowError(t.Context(), t.Context(), cause); errors.Is(err, errBusy) || !errors.Is(err, cause) {
		t.Errorf("a failed start: %v, want its cause", err)
	}
	wait, cancel := context.WithTimeout(t.Context(), 0)
	defer cancel()
	<-wait.Done()
	if err := borrowError(t.Context(), wait, context.DeadlineExceeded); !errors.Is(err, errBusy) {
		t.Errorf("a wait that ran out: %v, want errBusy", err)
	}
	if err := borrowError(t.Context(), t.Context(), nil); err != nil {
		t.Errorf("an engine: %v", err)
	}
}

// TestRotatedStamp reads a paper's first page as arXiv stamps it: its
// identifier set up the left margin, turned a quarter. The stamp is a
// line of words or left out, not a paragraph a letter ("a", "r", "X",
// ...), and the paper's title stays its first heading.
func TestRotatedStamp(t *testing.T) {
	doc, err := Read(pdftest.Pages(`BT /F4 17 Tf 100 700 Td (Attention Over Tides) Tj ET
BT /F1 10 Tf 12 TL 100 660 Td (The tides of the North Sea rise twice a day, and this paper says why.) Tj T* (It goes on for a second line of text, as papers do.) Tj ET
q 0.5 g BT /F4 20 Tf 0 1 -1 0 32 240 Tm (arXiv:2401.01234v1  [cs.CL]  2 Jan 2024) Tj ET Q`), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := doc.Markdown
	if !strings.Contains(md, "\n# Attention Over Tides\n") {
		t.Errorf("the title is not the first heading:\n%s", md)
	}
	for line := range strings.Lines(md) {
		if t0 := strings.TrimSpace(line); t0 != "" && len([]rune(strings.TrimLeft(t0, "#\\ "))) <= 2 {
			t.Errorf("a paragraph of a letter or two, %q, in:\n%s", t0, md)
			break
		}
	}
}

// TestBusyIsTransient: a document that found no engine free is one to
// ask for again, not one that failed.
func TestBusyIsTransient(t *testing.T) {
	wait, cancel := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancel()
	<-wait.Done()
	if err := borrowError(t.Context(), wait, context.DeadlineExceeded); heed.KindOf(err) != heed.Transient {
		t.Errorf("a wait that ran out: %v, kind %v, want transient", err, heed.KindOf(err))
	}
}

// TestCacheDir: the engine's compiled code is kept in a folder of the
// user's own that no one else may write, and not in one others may.
func TestCacheDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	t.Setenv("HOME", home)
	dir := cacheDir()
	if dir == "" {
		t.Fatal("no cache folder in a fresh cache directory")
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("cache folder %s: %v, %v", dir, fi.Mode(), err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if got := cacheDir(); got != "" {
		t.Errorf("a folder all may write is used: %s", got)
	}
}

// TestParagraphAcrossPages: a paragraph that a page break cuts, even in a
// hyphenated word, is one paragraph, kept with the page it begins on;
// one that ends its page is not joined to the next page's.
func TestParagraphAcrossPages(t *testing.T) {
	doc, err := Read(pdftest.Pages(
		`BT /F1 10 Tf 12 TL 72 700 Td (The keeper reads the gauge at every turn of the tide and writes the height) Tj T* (in a ledger, which the tide office collects at the end of each month, and the har-) Tj ET`,
		`BT /F1 10 Tf 12 TL 72 700 Td (bour master signs it before it is sent on to the office in town.) Tj T* T* (A new paragraph starts here, on the second page, and says more of the sea.) Tj ET`,
	), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "<!-- page 1 -->\n\nThe keeper reads the gauge at every turn of the tide and writes the height in a ledger, which the tide office collects at the end of each month, and the harbour master signs it before it is sent on to the office in town.\n\n<!-- page 2 -->\n\nA new paragraph starts here, on the second page, and says more of the sea."
	if doc.Markdown != want {
		t.Errorf("got\n%q\nwant\n%q", doc.Markdown, want)
	}
}
