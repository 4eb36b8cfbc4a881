package extract

import (
	"fmt"
	"strings"
	"testing"
)

// TestHiddenPageShown: a page does not hide most of what it says. The
// content a streamed page keeps in a hidden container, a page faded in
// from a wrapper hidden until its scripts run, and a main element that an
// unclosed aside swallowed are the content; hidden parts that hold less,
// and hidden boilerplate however long, stay out.
func TestHiddenPageShown(t *testing.T) {
	prose := "The bridge opened after nine years of work. " + strings.Repeat("Its towers, cables and deck were built by crews from three towns. ", 12)
	cases := []struct {
		name, page string
		want, not  []string
	}{
		{
			name: "streamed",
			page: `<body><div class="skeleton">Loading…</div><div hidden id="S:0"><main><h1>Opening day</h1><p>` + prose + `</p></main></div></body>`,
			want: []string{"Opening day", "nine years of work"},
		},
		{
			// The shell has a main of its own, around a banner and the
			// footer: it is not the page's content.
			name: "streamed into a shell with its main",
			page: `<body><main><div class="banner">Migrate today and get credits</div><footer><a href="/docs">Docs</a> <a href="/blog">Blog</a> <p>© Example 2026</p></footer></main><div hidden id="S:0"><h1>Opening day</h1><p>` + prose + `</p></div></body>`,
			want: []string{"Opening day", "nine years of work"},
		},
		{
			name: "faded in",
			page: `<body><div id="__next"><div style="visibility:hidden;min-height:100vh"><nav><a href="/a">Home</a> <a href="/b">News</a></nav><article><p>` + prose + `</p></article></div></div></body>`,
			want: []string{"nine years of work"},
			not:  []string{"Home"},
		},
		{
			name: "main in an unclosed aside",
			page: `<body><aside class="announcement-banner"><a href="/sale">Sale today</a><main><article><p>` + prose + `</p></article></main></body>`,
			want: []string{"nine years of work"},
		},
		{
			name: "hidden copy of a shown article",
			page: `<body><article><p>` + prose + `</p></article><div style="display:none" id="republish"><p>` + prose + `</p><p>Republish this story under our licence.</p></div></body>`,
			want: []string{"nine years of work"},
			not:  []string{"Republish"},
		},
		{
			name: "hidden dialog",
			page: `<body><p>A short note on the bridge.</p><div role="dialog" style="display:none"><p>` + strings.Repeat("We and our partners store cookies, and you may refuse them. ", 12) + `</p></div></body>`,
			want: []string{"short note"},
			not:  []string{"cookies"},
		},
		{
			// A short article is what the page shows: terms of sale it
			// hides are not shown, however long.
			name: "short article beside hidden terms",
			page: `<body><main><article><h2>Jazz night on Friday</h2><p>The trio plays from nine. Doors open at eight.</p></article></main><div style="display:none" id="terms"><p>` + strings.Repeat("Tickets cannot be exchanged or refunded, and the club may refuse entry. ", 12) + `</p></div></body>`,
			want: []string{"trio plays from nine"},
			not:  []string{"cannot be exchanged"},
		},
		{
			name: "short page titled by its h1 beside a hidden signup",
			page: `<body><div class="brief"><h1>Council approves the budget</h1><p>By nine votes to four.</p></div><div class="reveal" id="signupBox" style="display:none"><p>` + strings.Repeat("Every week our editors pick the stories that matter and send them to you before breakfast. ", 8) + `</p></div></body>`,
			want: []string{"nine votes to four"},
			not:  []string{"before breakfast"},
		},
		{
			name: "hidden footer",
			page: `<body><p>A short note on the bridge.</p><footer hidden><p>` + strings.Repeat("All rights reserved by the publisher and its partners. ", 12) + `</p></footer></body>`,
			want: []string{"short note"},
			not:  []string{"rights reserved"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Extract(strings.NewReader(c.page), Options{URL: "https://news.example/bridge"})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(doc.Markdown, w) {
					t.Errorf("no %q in:\n%s", w, doc.Markdown)
				}
			}
			for _, n := range c.not {
				if strings.Contains(doc.Markdown, n) {
					t.Errorf("%q kept in:\n%s", n, doc.Markdown)
				}
			}
			if strings.Count(doc.Markdown, "nine years of work") > 1 {
				t.Errorf("the text twice:\n%s", doc.Markdown)
			}
		})
	}
}

// TestCollapsedPanelsShown: an accordion's answers, collapsed until their
// question is clicked, are the page's text; a menu that a button opens is
// not.
func TestCollapsedPanelsShown(t *testing.T) {
	intro := "<p>" + strings.Repeat("Our clinic answers the questions patients ask most often, in plain words. ", 6) + "</p>"
	page := `<body><header><button aria-controls="menu" aria-expanded="false">Menu</button>
<div id="menu" hidden><a href="/a">Appointments</a> <a href="/b">Locations</a> <a href="/c">Careers</a></div></header>
<main><h1>Questions</h1>` + intro + `
<h3><button aria-controls="a1" aria-expanded="false">Do I need a referral?</button></h3>
<div id="a1" hidden><p>No referral is needed for a first visit to the clinic.</p></div>
<h3><button data-bs-toggle="collapse" data-bs-target="#a2">Is parking free?</button></h3>
<div id="a2" class="collapse" style="display:none"><p>Parking is free for patients for the first three hours.</p></div>
<div id="a3" hidden><p>A panel nothing opens stays out of the page.</p></div>
</main></body>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://clinic.example/faq"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"No referral is needed", "Parking is free"} {
		if !strings.Contains(doc.Markdown, w) {
			t.Errorf("no %q in:\n%s", w, doc.Markdown)
		}
	}
	for _, n := range []string{"Careers", "nothing opens"} {
		if strings.Contains(doc.Markdown, n) {
			t.Errorf("%q kept in:\n%s", n, doc.Markdown)
		}
	}
}

// TestThinChoiceFallsBack: when what the rules choose comes out as next
// to nothing (here a comment list that holds most of the page's text,
// whose comments are left out), the page less its boilerplate is given
// instead of an empty document.
func TestThinChoiceFallsBack(t *testing.T) {
	var comments strings.Builder
	for i := range 12 {
		fmt.Fprintf(&comments, `<li class="comment"><div class="cw"><div class="commentTop"><h4><a href="/c/%d">Re: jobs</a></h4></div><div class="commentBody"><p>%s</p></div></div></li>`,
			i, strings.Repeat("I disagree with the premise entirely, and here is why, at some length. ", 5))
	}
	page := `<body><section><div class="main-wrap"><div class="main-content"><div id="firehose">
<article class="fhitem story"><h2><a href="/story/1">Graduates find fewer jobs</a></h2><div class="body"><div class="p"><i>` + strings.Repeat("Computer science graduates find fewer entry-level openings this year. ", 4) + `</i></div></div></article></div>
<ul id="commentlisting" class="d2">` + comments.String() + `</ul></div></div></section></body>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://news.example/story/1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Markdown, "fewer entry-level openings") {
		t.Errorf("the story is missing:\n%s", doc.Markdown)
	}
}

// TestOneSectionOfMany: on a page that is no article, a choice that says
// under two fifths of the page's prose is one section of many (a
// harbour's story beside a grid of its services): the page less its
// boilerplate is given. On an article, the same story is the text, and
// the grid beside it stays out.
func TestOneSectionOfMany(t *testing.T) {
	var tiles strings.Builder
	for i := range 12 {
		fmt.Fprintf(&tiles, `<div class="tile"><h3>Service %d</h3><span>We look after service %d for boats of every size</span></div>`, i, i)
	}
	body := `<header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>` +
		`<div class="hero"><div class="story"><p>` + strings.Repeat("We have kept boats safe on this harbour since 1950, through storms and floods, and our people know every berth. ", 3) + `</p></div></div>` +
		`<div class="grid"><div class="row">` + tiles.String() + `</div></div><footer><p>Harbour Ltd, 1 Quay Street.</p></footer>`
	md := extractMarkdown(t, `<html><head><title>Harbour services</title></head><body>`+body+`</body></html>`, "https://harbour.example/")
	for _, want := range []string{"kept boats safe", "Service 0", "service 11 for boats"} {
		if !strings.Contains(md, want) {
			t.Errorf("a landing page: lost %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Quay Street") {
		t.Errorf("a landing page: kept its footer:\n%s", md)
	}
	md = extractMarkdown(t, articleOf("Harbour services", body), "https://harbour.example/")
	if !strings.Contains(md, "kept boats safe") || strings.Contains(md, "Service 0") {
		t.Errorf("an article: want the story alone:\n%s", md)
	}
}

// TestHiddenModalStaysHidden: a product page says little, and its
// terms of sale wait in a modal hidden until a link opens it. The modal
// holds most of the page's prose, so revealed shows it, and the terms
// become the page's text; the page's own main element and heading, shown,
// say where the content is.
func TestHiddenModalStaysHidden(t *testing.T) {
	terms := strings.Repeat("By using this shop you agree that all sales are final, that prices may change without notice, and that delivery times are estimates. ", 10)
	page := `<html><body><main><h1>Blue kettle</h1><p>A blue kettle that boils a litre in two minutes.</p><p>Price: 30 euros.</p></main>` +
		`<div id="terms" class="modal fade" style="display:none"><div class="modal-body"><h2>Terms of sale</h2><p>` + terms + `</p></div></div></body></html>`
	md := extractMarkdown(t, page, "https://shop.example/kettle")
	if !strings.Contains(md, "boils a litre") {
		t.Errorf("the product is missing:\n%s", md)
	}
	if strings.Contains(md, "sales are final") {
		t.Errorf("the hidden terms are shown:\n%.400s", md)
	}
}

// TestRevealBounds: a menu that a button inside the content opens stays
// hidden (it is mostly links); a hidden part beside a shown part that
// holds a third of the prose stays hidden (the page is no shell).
func TestRevealBounds(t *testing.T) {
	intro := "<p>" + strings.Repeat("Our clinic answers the questions patients ask most often. ", 5) + "</p>"
	page := `<body><main>` + intro + `<button aria-controls="more-links">More</button>
<div id="more-links" hidden><a href="/a">Appointments and bookings</a> <a href="/b">Locations and hours</a> <a href="/c">Careers at the clinic</a></div></main></body>`
	md := extractMarkdown(t, page, "https://clinic.example/faq")
	if strings.Contains(md, "Careers") {
		t.Errorf("a menu in the content shown:\n%s", md)
	}
	shown := "<p>" + strings.Repeat("A short note on the bridge, shown to every reader. ", 4) + "</p>"
	hiddenPart := "<p>" + strings.Repeat("A longer hidden text, which a script may, or may not, show. ", 8) + "</p>"
	page = `<body><div>` + shown + `</div><div style="display:none">` + hiddenPart + `</div></body>`
	md = extractMarkdown(t, page, "https://news.example/bridge")
	if !strings.Contains(md, "short note") || strings.Contains(md, "longer hidden text") {
		t.Errorf("want the shown note only:\n%s", md)
	}
}

// TestPopoverHidden: an element with the popover attribute (a prompt to
// turn on notifications, a menu, a tip) is not shown until it is
// opened, as the browser's own style says: however much it says, a
// thread's posts beside it are the page; and a "manual" popover inside a
// post (its share menu) is hidden too.
func TestPopoverHidden(t *testing.T) {
	prompt := `<i-card popover id="push-prompt"><div class="card"><h4>Configure browser push notifications</h4><div class="panels">` +
		strings.Repeat("<p>Open your browser's settings, find this site among the sites that may send notifications, and choose whether it may, then reload the page. </p>", 6) + `</div></div></i-card>`
	var posts strings.Builder
	for i := 1; i <= 3; i++ {
		posts.WriteString(`<div class="post"><p>Reply ` + string(rune('0'+i)) + `: the roadmap says the editor comes first, and the new templates after it, which suits us.</p><div popover="manual" class="more"><p>Copy the link to this reply, or send it by mail to a friend who follows the roadmap too.</p></div></div>`)
	}
	page := `<html><head><title>Roadmap discussion</title></head><body>` + prompt + `<main><h1>Roadmap discussion</h1>` + posts.String() + `</main></body></html>`
	md := extractMarkdown(t, page, "https://forum.example/topic/roadmap")
	if !strings.Contains(md, "Reply 1: the roadmap") || !strings.Contains(md, "Reply 3: the roadmap") {
		t.Errorf("the posts are missing:\n%s", md)
	}
	if strings.Contains(md, "push notifications") || strings.Contains(md, "browser's settings") || strings.Contains(md, "Copy the link") {
		t.Errorf("the popover is shown:\n%.400s", md)
	}
}

// TestReaderWordsForFigures: where a price is shown to the eye and
// hidden from screen readers (aria-hidden), and the words beside it are
// shown to screen readers only, those words are the page's: a shop's
// sale price ("Original price was: $30.00." beside the struck-out $30.00)
// is kept, on either side of the figure. Beside a sign (a pager's «),
// words the eye reads ("Pre-order"), a count (a slide's "1 / 3", a
// post's "1.2K" comments), a rating, a section's number, a footnote's
// number, money in words ("$$", "Save $5 monthly"), or a
// price that screen readers hear too, the reader's label
// stays out, and so does reader-only text that stands beside nothing.
func TestReaderWordsForFigures(t *testing.T) {
	price := `<span class="price"><del aria-hidden="true"><span class="amount">$30.00</span></del> <span class="screen-reader-text">Original price was: $30.00.</span><ins aria-hidden="true"><span class="amount">21,00 €</span></ins><span class="screen-reader-text">Current price is: 21,00 €.</span></span>`
	rating := `<div class="rating"><span class="sr-only">Rated 4.5 out of 5 by buyers</span> <span aria-hidden="true">4.5</span></div>`
	pager := `<nav class="pages"><a href="/p/1"><span aria-hidden="true">&laquo;</span><span class="sr-only">Previous page of lamps</span></a></nav>`
	button := `<div class="buy"><span aria-hidden="true">Pre-order</span><span class="visually-hidden">Pre-order the Folding Lamp today</span></div>`
	alone := `<p><span class="sr-only">Skip to the lamp's reviews</span></p>`
	footnote := `<p>The lamp folds flat<a href="#fn1"><span aria-hidden="true">1</span><span class="visually-hidden">Footnote one</span></a> for travel, in a case of its own.</p>`
	counters := `<div class="counter"><span aria-hidden="true">1 / 3</span><span class="sr-only">Slide one of three</span></div><div class="stats"><span aria-hidden="true">1.2K</span><span class="screen-reader-text">1.2K comments on the Folding Lamp</span></div>`
	section := `<p>See chapter<span aria-hidden="true">3.2</span><span class="sr-only">Section three point two of the manual</span> for its care.</p>`
	heard := `<div class="was"><span class="amount">$40.00</span><span class="sr-only">List price, before the sale</span></div>`
	signs := `<div class="range"><span aria-hidden="true">$$</span><span class="sr-only">Price range: moderate</span></div><div class="plan"><span aria-hidden="true">Save $5 monthly</span><span class="sr-only">Save money with the yearly plan</span></div>`
	page := `<html><body><main><h1>Folding Lamp</h1>` + strings.Repeat(sectionPara("The lamp"), 3) + footnote + section + price + rating + button + alone + counters + heard + signs + pager + `</main></body></html>`
	md := extractMarkdown(t, page, "https://shop.example/lamp")
	for _, want := range []string{"Original price was: $30.00.", "Current price is: 21,00 €.", "The lamp goes on", "The lamp folds flat for travel", "$40.00"} {
		if !strings.Contains(md, want) {
			t.Errorf("lost %q:\n%s", want, md)
		}
	}
	for _, not := range []string{"Previous page of lamps", "Pre-order the Folding Lamp", "Skip to the lamp's reviews", "Footnote one", "Slide one", "comments on the Folding", "Section three", "Rated 4.5", "List price", "Price range", "Save money"} {
		if strings.Contains(md, not) {
			t.Errorf("kept %q, a label for screen readers only:\n%s", not, md)
		}
	}
}
