package sim

import (
	"strings"
	"testing"
)

// Issue 31, item 13: a lock whose token advances with each renewal (a record's
// version number) fences with the current one. Belief.Renew replaces the token
// Start froze; it cannot arm a belief that has ended, and an unchanged token
// reports nothing.
func TestRenewReplacesTheTokenOnlyWhileTheClientHolds(t *testing.T) {
	var b Belief
	var out Outputs
	b.Renew(&out, 1, 9)
	if tok, fenced := b.Token(); fenced || tok != 0 || len(out.obs) != 0 {
		t.Fatalf("a renewal before any grant set token %d (fenced %v) and reported %v", tok, fenced, out.obs)
	}
	b.Start(&out, 1, "L", "c1#1", 0, 1, true)
	b.Renew(&out, 1, 2)
	b.Renew(&out, 1, 2) // the same token again: nothing new to say
	b.Renew(&out, 1, 4)
	if tok, fenced := b.Token(); !fenced || tok != 4 {
		t.Fatalf("after renewals to 2 and 4 the token is %d (fenced %v), want 4", tok, fenced)
	}
	var notes []string
	for _, o := range out.obs {
		if o.Kind == ObsNote {
			notes = append(notes, o.Text)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[1], "renewed L as c1#1: its fencing token is now 4") {
		t.Errorf("the log says %q, want one line per new token", notes)
	}
	b.End(&out, 1, ReasonExpired)
	b.Renew(&out, 1, 7) // an answer that arrives after the belief ended
	if tok, _ := b.Token(); tok != 4 {
		t.Errorf("a renewal after the belief ended moved the token to %d", tok)
	}
	// A client that had no token at acquisition fences once it is given one.
	var u Belief
	u.Start(&out, 2, "L", "c2#1", 0, 0, false)
	u.Renew(&out, 2, 3)
	if tok, fenced := u.Token(); !fenced || tok != 3 {
		t.Errorf("an unfenced belief renewed with token 3 has %d (fenced %v)", tok, fenced)
	}
}
