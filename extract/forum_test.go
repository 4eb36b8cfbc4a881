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

// An API's member signature is its code, whatever "signature" says in a
// forum.
func TestMemberSignatureStays(t *testing.T) {
	doc := extractPageString(t, `<html><head><title>Map</title></head><body><main><h1>Interface Map</h1><section class="detail"><h3>get</h3><div class="member-signature"><span class="return-type">V</span> <span class="element-name">get</span>(Object key)</div><div class="block">`+revSentences("Returns the value", 3)+`</div></section></main></body></html>`)
	wantAll(t, "javadoc", doc.Markdown, "get(Object key)", "Returns the value goes on")
}
