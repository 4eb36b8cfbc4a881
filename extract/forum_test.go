package extract

import (
	"fmt"
	"strings"
	"testing"
)

// A thread in XenForo's markup, and one in phpBB's: each post's user
// title ("Well-known member"), its user's stats and its signature are
// what the forum says of the poster under every post, not what the post
// says; the posters' names and their posts stay.
func TestForumPosterChrome(t *testing.T) {
	var xf, bb strings.Builder
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&xf, `<article class="message message--post"><div class="message-inner"><div class="message-cell message-cell--user"><section class="message-user"><div class="message-userDetails"><h4 class="message-name"><a href="/members/poster%d">Poster%d</a></h4><h5 class="userTitle message-userTitle">Well-known member</h5></div><div class="message-userStats">Joined 2019 Messages %d0</div></section></div><div class="message-cell message-cell--main"><div class="message-content"><div class="bbWrapper">Post %d: %s</div><aside class="message-signature"><div class="bbWrapper">Sig %d: my rig, my cameras, my links.</div></aside></div></div></div></article>`, i, i, i, i, revSentences("The reply", 2), i)
		fmt.Fprintf(&bb, `<div class="post"><div class="postbody"><p class="author">by <a href="/u%d">Poster%d</a></p><div class="content">Post %d: %s</div><div class="signature">Sig %d: my rig, my cameras, my links.</div></div></div>`, i, i, i, revSentences("The reply", 2), i)
	}
	for name, body := range map[string]string{"xenforo": xf.String(), "phpbb": bb.String()} {
		doc := extractPageString(t, `<html><head><title>A thread</title></head><body><main><h1>A thread</h1>`+body+`</main></body></html>`)
		wantAll(t, name, doc.Markdown, "Poster1", "Poster4", "Post 1: The reply goes on", "Post 4: The reply goes on")
		for _, gone := range []string{"Well-known member", "Joined 2019", "Sig 2:"} {
			if strings.Contains(doc.Markdown, gone) {
				t.Errorf("%s: want no %q:\n%s", name, gone, doc.Markdown)
			}
		}
	}
}

// A signature box under a post goes, however the forum names it; what
// else the word "signature" marks stays: an API's signatures as
// documentation generators write them (Javadoc, ExDoc, JSDoc, YARD), a
// letter's closing, a testimonial's name, a restaurant's signature dish.
func TestSignatures(t *testing.T) {
	post := func(sig string) string {
		var b strings.Builder
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(&b, `<div class="post"><p class="author">Poster%d</p><div class="content">Post %d: %s</div>`+sig+`</div>`, i, i, revSentences("The reply", 2), i)
		}
		return `<html><head><title>A thread</title></head><body><main><h1>A thread</h1>` + b.String() + `</main></body></html>`
	}
	for _, sig := range []string{
		`<div class="signature">Sig %d: my rig and my links.</div>`,
		`<div class="post-signature flex--item">Sig %d: my rig and my links.</div>`,
		`<div class="postsignature postmsg">Sig %d: my rig and my links.</div>`,
		`<blockquote class="signature restore">Sig %d: my rig and my links.</blockquote>`,
		`<div class="forum-signature">Sig %d: my rig and my links.</div>`,
		`<div class="user-signature">Sig %d: my rig and my links.</div>`,
		`<div class="message-signature">Sig %d: my rig and my links.</div>`,
	} {
		doc := extractPageString(t, post(sig))
		wantAll(t, sig, doc.Markdown, "Post 1: The reply goes on", "Post 3: The reply goes on")
		if strings.Contains(doc.Markdown, "Sig 2:") {
			t.Errorf("%s: want no signature:\n%s", sig, doc.Markdown)
		}
	}
	body := `<p>` + revSentences("The text", 4) + `</p>`
	for name, c := range map[string]struct{ page, want string }{
		"javadoc":     {`<section class="detail"><h3>get</h3><div class="member-signature"><span class="return-type">V</span> <span class="element-name">get</span>(Object key)</div>` + body + `</section>`, "get(Object key)"},
		"exdoc":       {`<section class="detail"><div class="detail-header"><h1 class="signature">fetch(map, key)</h1></div>` + body + `</section>`, "fetch(map, key)"},
		"jsdoc":       {`<h4 class="name" id="add">add<span class="signature">(a, b)</span><span class="type-signature"> → {number}</span></h4>` + body, "(a, b)"},
		"yard":        {`<h3 class="signature first" id="push-instance_method">#<strong>push</strong>(item)</h3>` + body, "(item)"},
		"letter":      {body + `<p class="signature">Yours sincerely, Ann Example, Mayor of Harbourton</p>`, "Ann Example, Mayor"},
		"testimonial": {body + `<blockquote><p>They rebuilt our sea wall in a week, and it held all winter.</p><h4 class="signature">Bo Sample, Harbourton</h4></blockquote>`, "Bo Sample, Harbourton"},
		"dish":        {body + `<div class="dish signature"><h3>Harbour stew</h3><p>Mussels, cod and leeks in a saffron broth, with bread from the bakery next door.</p></div>`, "saffron broth"},
	} {
		doc := extractPageString(t, `<html><head><title>A page</title></head><body><main><h1>A page</h1>`+c.page+`</main></body></html>`)
		wantAll(t, name, doc.Markdown, c.want, "The text goes on")
	}
}

// TestPostNumbers: each post's number, a link to the post standing alone
// beside its date (XenForo's "#2" in a list item of its own, MyBB's in a
// bold box, NodeBB's beside an icon), is the permalink's label and goes;
// the date, the post, and numbers that are text stay: a pull request's
// in a sentence, a list item that names what it numbers, a chart
// position in bold, an issue's in a changelog, a ticket's in a table's
// cell, release notes' list of issues on another site, an archive's
// numbered issues, a hashtag, a chapter's number without "#", a number
// that is no link, and links to posts that are no post's number alone
// (a bare number, a word, a post cited in a sentence, another site's, a
// thread whose address only starts as this one's does).
func TestPostNumbers(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, `<article class="message message--post"><h4 class="message-name"><a href="/members/poster%d">Poster%d</a></h4><header class="message-attribution"><ul class="message-attribution-main"><li><a href="/threads/t.1/post-%d"><time>Dec 30, 2023</time></a></li></ul><ul class="message-attribution-opposite"><li><a href="/threads/t.1/post-%d" rel="nofollow">#%d</a></li></ul></header><div class="bbWrapper">Post %d: %s</div></article>`, i, i, i, i, i+40, i, revSentences("The reply", 2))
	}
	b.WriteString(`<div class="post_head"><div class="float_right"><strong><a href="/thread-9-post-5.html#pid5">#51</a></strong></div><span class="post_date">Jan 2</span></div>` +
		`<div class="post-meta"><span class="bookmarked"><i class="fa fa-bookmark"></i></span> <a href="/post/797018" class="post-index">#52</a></div>` +
		`<div class="postnum"><a href="/showthread.php?tid=9&amp;pid=12#pid12">#53</a></div><div class="postnum"><a href="/threads/t.1#m7">#54</a></div>` +
		// Links to posts that are not a post's number standing alone.
		`<ul><li><a href="/threads/t.1/post-77">77</a></li><li><a href="/threads/t.1/post-8">#reply</a></li></ul>` +
		`<p>As <strong><a href="/threads/t.1/post-2">#60</a></strong> says, the tide turned.</p>` +
		`<ul><li><a href="https://other.example/threads/t.1/post-5">#61</a></li><li><a href="/threads/t.10/">#62</a></li></ul>` +
		`<p>The fix came in pull request <a href="https://git.example/pull/20713">#20713</a>, merged on Friday.</p><ul><li><a href="/rank/1">#1</a> The river walk</li></ul><p>Filed under:</p><ul><li><a href="/tag/rivers">#rivers</a></li><li><a href="/tag/walks">#walks</a></li></ul>` +
		`<p>The song reached <strong><a href="/charts/hot-100">#7</a></strong> on the chart.</p><ul><li>Fixed a crash on save (<span class="issue"><a href="/issues/812">#812</a></span>)</li></ul>` +
		`<table><tr><th>Ticket</th><th>Summary</th></tr><tr><td><a href="/ticket/101">#101</a></td><td>The tide table is off by an hour</td></tr></table>` +
		`<h2>Closed issues</h2><ul><li><a href="https://git.example/acme/tool/issues/905">#905</a></li><li><a href="https://git.example/acme/tool/issues/906">#906</a></li></ul>` +
		`<h2>Past issues</h2><ul><li><a href="/newsletter/301">#301</a></li><li><a href="/newsletter/302">#302</a></li></ul>` +
		`<p>Chapters:</p><ul><li><a href="/book/ch/12">12</a></li><li><a href="/book/ch/13">13</a></li></ul><ul><li><span>#9</span></li></ul>`)
	page := `<html><head><title>A thread</title></head><body><main><h1>A thread</h1>` + b.String() + `</main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://forum.example/threads/t.1/"})
	if err != nil {
		t.Fatal(err)
	}
	wantAll(t, "thread", doc.Markdown, "Poster1", "Dec 30, 2023", "Post 3: The reply goes on", "Jan 2", "#20713", "#1](https://", "#rivers", "#7](https://",
		"#812](https://", "#101](https://", "#905](https://", "#302](https://", "[12](https://", "#9",
		"[77](https://", "#reply", "#60](https://", "#61](https://", "#62](https://")
	for _, gone := range []string{"#41", "#43", "#51", "#52", "#53", "#54"} {
		if strings.Contains(doc.Markdown, gone) {
			t.Errorf("want no post number %q:\n%s", gone, doc.Markdown)
		}
	}
}
