package extract

import (
	"fmt"
	"strings"
	"testing"
)

// TestElementorPostContent: a post built with Elementor has its body in
// the "Post Content" widget, each section in a box of its own, and a
// grid of other posts' excerpts below. The widget is the post, whole,
// though one of the excerpts (long, with commas) scores best alone.
func TestElementorPostContent(t *testing.T) {
	section := func(h, p string) string {
		return `<div class="elementor-element e-con-full e-flex e-con e-child"><div class="elementor-element elementor-widget elementor-widget-heading"><div class="elementor-widget-container"><h2>` + h + `</h2></div></div>
<div class="elementor-element elementor-widget elementor-widget-text-editor"><div class="elementor-widget-container"><p>` + strings.Repeat(p+" ", 8) + `</p></div></div></div>`
	}
	body := section("Why plants", "A diet of plants is good for the heart, for the planet, and for your purse.") +
		section("Where to start", "Start with one meal a week, then two, and learn a few recipes you like before you change more.") +
		section("Explore new ingredients", "Tofu, beans and lentils keep well and cook fast, and spices make them taste of something.")
	var grid strings.Builder
	for i := range 12 {
		fmt.Fprintf(&grid, `<article class="elementor-post elementor-grid-item"><div class="elementor-post__text"><h3 class="elementor-post__title"><a href="/post-%d">Another post %d</a></h3>
<div class="elementor-post__excerpt"><p>When the agency denies your claim, it can feel like a dead end, but you have options, rights, deadlines, appeals, hearings, and more, so read on, and call us, today, tomorrow, or any day.</p></div></div></article>`, i, i)
	}
	page := `<html><head><meta property="og:type" content="article"><title>Going plant-based</title></head><body class="single-post">
<div class="elementor elementor-location-single post"><div class="elementor-element e-con-full e-flex e-con e-parent">
<div class="elementor-element elementor-widget elementor-widget-theme-post-title"><div class="elementor-widget-container"><h1>Going plant-based</h1></div></div>
<div class="elementor-element elementor-widget elementor-widget-theme-post-content"><div class="elementor-widget-container"><div class="elementor">` + body + `</div></div></div>
<div class="elementor-element elementor-widget elementor-widget-posts"><div class="elementor-widget-container"><div class="elementor-posts-container elementor-posts elementor-grid">` + grid.String() + `</div></div></div>
</div></div></body></html>`
	md := extractMarkdown(t, page, "https://blog.example/plant-based/")
	wantAll(t, "post", md, "good for the heart", "one meal a week", "Tofu, beans and lentils")
	if strings.Contains(md, "dead end") {
		t.Errorf("the other posts' excerpts kept:\n%s", md)
	}
}

// elementorText is an Elementor text widget holding p.
func elementorText(p string) string {
	return `<div class="elementor-element elementor-element-1a2b3c elementor-widget elementor-widget-text-editor"><div class="elementor-widget-container"><p>` + p + `</p></div></div>`
}

// TestElementorWidgetsAreContent: in a page built with Elementor every
// paragraph is a widget ("elementor-widget elementor-widget-text-editor"),
// and a widget in an article is chrome (a sidebar's). The builder's
// word is not: short paragraphs with few commas stay.
func TestElementorWidgetsAreContent(t *testing.T) {
	long := strings.Repeat("The harbour was dredged in spring, and the boats, the ferries, the tugs and the barges came back, one by one, to the quay. ", 4)
	page := `<html><head><meta property="og:type" content="article"><title>The harbour</title></head><body>
<div class="elementor elementor-location-single post"><div class="elementor-element e-con-full e-flex e-con e-parent">
<div class="elementor-element elementor-widget elementor-widget-theme-post-title"><div class="elementor-widget-container"><h1>The harbour</h1></div></div>` +
		elementorText(long) +
		elementorText("The first ferry docked at noon on Monday.") +
		elementorText("Fishermen say the catch is better than last year.") +
		elementorText(long) +
		`</div></div></body></html>`
	md := extractMarkdown(t, page, "https://port.example/harbour/")
	wantAll(t, "article", md, "one by one", "docked at noon on Monday", "catch is better than last year")
}

// TestElementorPopupHidden: Elementor writes its popups into the page
// (elementor-location-popup) and its script shows them on a trigger. Until
// then they are hidden: a long offer in one is not the page's content,
// though it outscores the page's short widgets.
func TestElementorPopupHidden(t *testing.T) {
	offer := strings.Repeat("Get a year of lessons, videos, courses, guides, and coaching, free for seven days, then cancel, pause, or keep it, as you like. ", 5)
	page := `<html><head><title>Coaching</title></head><body>
<div class="elementor elementor-99 elementor-location-popup" data-elementor-type="popup"><section class="elementor-section"><div class="elementor-widget-container"><p>` + offer + `</p></div></section></div>
<div class="elementor elementor-12"><div class="elementor-element e-con-full e-con e-parent">` +
		elementorText("We coach people who want a new job.") +
		elementorText("Book a first call and we will listen.") +
		elementorText("Our coaches have hired for twenty years.") +
		elementorText("Sessions are online or in our office.") +
		`</div></div></body></html>`
	md := extractMarkdown(t, page, "https://coach.example/")
	wantAll(t, "coaching page", md, "coach people who want a new job")
	if strings.Contains(md, "free for seven days") {
		t.Errorf("the popup kept:\n%s", md)
	}
}
