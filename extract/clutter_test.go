// Tests of what class words, twins, titles and invisible characters must
// not take away.

package extract

import (
	"fmt"
	"strings"
	"testing"
)

func sectionPara(w string) string {
	return "<p>" + strings.Repeat(w+" goes on, sentence after sentence, with commas and words. ", 4) + "</p>"
}

func extractPageString(t *testing.T, page string) *Document {
	t.Helper()
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://example.com/p"})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// WordPress's classic image-with-caption wrapper: the image is content.
func TestWPCaptionKeepsImage(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"><title>Harbours</title></head><body><article><h1>Harbours</h1>` +
		sectionPara("The story") + sectionPara("The story") +
		`<div id="attachment_12" class="wp-caption aligncenter"><img src="/boats.jpg" alt="Boats at dawn"><p class="wp-caption-text">Boats at dawn.</p></div>` +
		sectionPara("The story") + sectionPara("The story") + `</article></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "boats.jpg") {
		t.Errorf("lost the article's image:\n%s", doc.Markdown)
	}
}

// A short blog post whose main column is class "bio-content", and a
// product description in "product-credits": the whole content goes.
func TestShortContentInSoftClass(t *testing.T) {
	for _, class := range []string{"bio-content", "product-credits", "author-guide", "authoring", "previews"} {
		text := "This short post says one thing, plainly, and stops. It has two sentences and a third one too, for good measure and length."
		page := `<html><head><title>A post</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><div class="` + class + `"><h2>A note</h2><p>` + text + `</p><p>` + text + `</p></div></body></html>`
		doc := extractPageString(t, page)
		if !strings.Contains(doc.Markdown, "This short post") {
			t.Errorf("class %q: lost the content: %q", class, doc.Markdown)
		}
	}
}

// A documentation page whose one content wrapper is class "related-docs"
// holding less than half of the page's prose (a long changelog box below).
func TestRelatedDocsWrapper(t *testing.T) {
	page := `<html><head><title>Guide</title></head><body><div class="related-docs"><h1>Guide</h1>` + strings.Repeat(sectionPara("The guide"), 3) +
		`</div><div class="changelog">` + strings.Repeat(sectionPara("The changelog"), 4) + `</div></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The guide") {
		t.Errorf("lost the guide:\n%s", doc.Markdown)
	}
}

// twins: comment bodies made like the article's body join the content.
func TestTwinsPullComments(t *testing.T) {
	page := `<html><head><title>Post</title></head><body><div class="wrap"><div class="post"><h1>Post</h1><div class="meta">By someone, on a day, in a category, with tags and more words here</div><div class="text">` +
		strings.Repeat(sectionPara("The post"), 5) + `</div></div>
<div class="comments" id="comments"><h3>3 comments</h3>
<div class="comment"><div class="author">Bob</div><div class="text">` + sectionPara("Bob's comment") + `</div></div>
<div class="comment"><div class="author">Eve</div><div class="text">` + sectionPara("Eve's comment") + `</div></div>
</div></div></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The post") {
		t.Fatalf("lost the post:\n%s", doc.Markdown)
	}
	if strings.Contains(doc.Markdown, "comment goes on") {
		t.Errorf("twins pulled comments in:\n%s", doc.Markdown)
	}
}

// twins: a newsletter / sidebar box sharing a generic class.
func TestTwinsPullSidebar(t *testing.T) {
	page := `<html><head><title>Post</title></head><body>
<div class="row"><div class="col"><div class="section">` + strings.Repeat(sectionPara("The post"), 5) + `</div></div>
<div class="col sidebar"><div class="section">` + sectionPara("About me: the sidebar") + `</div></div></div>
<div class="newsletter"><div class="section">` + sectionPara("Subscribe to the newsletter") + `</div></div></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The post") {
		t.Fatalf("lost the post:\n%s", doc.Markdown)
	}
	for _, bad := range []string{"sidebar goes on", "newsletter goes on"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("twins pulled %q in:\n%s", bad, doc.Markdown)
		}
	}
}

func TestDropTitle(t *testing.T) {
	for _, c := range []struct {
		title, h1, rendered string
		drop                bool
	}{
		{"Part 10: the harbour", "Part 1", "# Part 1", false},                                   // substring, not a repeat
		{"Going home", "Go", "# Go", false},                                                     // substring of a word
		{"Using __init__ well", "Using __init__ well", "# Using", true},                         // escapes only undone on one side
		{"Harbour walls", `<a href="/harbour-walls">Harbour walls</a>`, "Harbour walls]", true}, // linked title heading
	} {
		page := `<html><head><meta property="og:type" content="article"><title>` + c.title + `</title></head><body><article><h1>` + c.h1 + `</h1>` + strings.Repeat(sectionPara("The harbour wall"), 4) + `</article></body></html>`
		doc := extractPageString(t, page)
		if dropped := !strings.Contains(doc.Markdown, c.rendered); dropped != c.drop {
			t.Errorf("title %q, h1 %q: dropped %v, want %v:\n%.120s", c.title, c.h1, dropped, c.drop, doc.Markdown)
		}
	}
}

// A zero-width space between two inline elements is no space.
func TestZeroWidthJoinsNoSpace(t *testing.T) {
	doc := extractPageString(t, `<body><article>`+sectionPara("The story")+`<p><b>Hello</b>&#8203;<b>World</b> is one word here, it really is, believe it.</p>`+sectionPara("The story")+`</article></body>`)
	if strings.Contains(doc.Markdown, "**Hello** **World**") {
		t.Errorf("a zero-width space became a space:\n%s", doc.Markdown)
	}
}

// BenchmarkManySameClass: pages of thousands of elements sharing one
// class, flat and nested, which the choice of twins walks.
func BenchmarkManySameClass(b *testing.B) {
	var flat, nested strings.Builder
	flat.WriteString("<body>")
	for range 8000 {
		fmt.Fprintf(&flat, `<div class="x"><p>%s</p></div>`, strings.Repeat("Some prose, with commas, words and more words here. ", 3))
	}
	nested.WriteString("<body>")
	for range 50 {
		for range 400 {
			fmt.Fprintf(&nested, `<div class="x"><p>%s</p>`, strings.Repeat("Some prose, with commas, words. ", 5))
		}
		nested.WriteString(strings.Repeat("</div>", 400))
	}
	for name, page := range map[string]string{"flat": flat.String(), "nested": nested.String()} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Extract(strings.NewReader(page), Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// twins with a generic class: Bootstrap-style "card" used for the post,
// for each comment, and for a sidebar box.
func TestTwinsGenericCard(t *testing.T) {
	page := `<html><head><title>Post</title></head><body><div class="container"><div class="row">
<div class="col-8"><div class="card"><div class="card-body"><h1>Post</h1>` + strings.Repeat(sectionPara("The post"), 5) + `</div></div>
<div id="comments" class="comments"><h3>2 comments</h3>
<div class="card"><div class="card-body"><b>Bob</b>` + sectionPara("Bob's comment") + `</div></div>
<div class="card"><div class="card-body"><b>Eve</b>` + sectionPara("Eve's comment") + `</div></div></div></div>
<div class="col-4 sidebar"><div class="card"><div class="card-body"><h4>About</h4>` + sectionPara("The sidebar's about box") + `</div></div></div>
</div></div></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The post") {
		t.Fatalf("lost the post:\n%s", doc.Markdown)
	}
	for _, bad := range []string{"comment goes on", "about box goes on"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("twins pulled %q in", bad)
		}
	}
}
