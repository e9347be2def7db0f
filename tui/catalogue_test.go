package tui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locksim/locksim/scenarios"
)

// browse walks the browser from its first scenario down to its last with ↓,
// and returns the scenarios in the order it shows them.
func browse(t *testing.T, a *App) []*scenarios.Scenario {
	t.Helper()
	drive(a, keyMsg("g"))
	var order []*scenarios.Scenario
	for range 200 {
		s := a.cat.Selected()
		if s == nil {
			t.Fatalf("the cursor is on no scenario (a header?) after %d", len(order))
		}
		if len(order) > 0 && order[len(order)-1] == s {
			break
		}
		order = append(order, s)
		drive(a, keyMsg("down"))
	}
	return order
}

// The browser shows the catalogue by lesson: grouped by protocol under a
// header each, and in each protocol the scenarios that name each other with
// compare-with together (a mistake beside its fix), the worse verdict first.
// Headers are never selected. The filter searches ids, summaries and sources.
// The keys stay: enter opens, w walks, v compares with the pair, C checks,
// / filters, q quits.
func TestCatalogueByLesson(t *testing.T) {
	cat := catalogue(t)
	a := NewApp(Options{Catalogue: cat, Dark: true})
	scr := screen(a, 120, 40)
	order := browse(t, a)

	if len(order) != len(cat) {
		t.Fatalf("the browser shows %d scenarios, the catalogue has %d", len(order), len(cat))
	}
	var protos []string
	pos := map[string]int{}
	for i, s := range order {
		pos[s.ID] = i
		if len(protos) == 0 || protos[len(protos)-1] != s.Protocol {
			if slices.Contains(protos, s.Protocol) {
				t.Errorf("%s stands apart from the other %s scenarios", s.ID, s.Protocol)
			}
			protos = append(protos, s.Protocol)
		}
	}
	for _, p := range protos[:2] {
		if !strings.Contains(scr, " "+strings.ToUpper(p)+"  ") {
			t.Errorf("no header for %s:\n%s", p, scr)
		}
	}
	byID := map[string]*scenarios.Scenario{}
	for _, s := range cat {
		byID[s.ID] = s
	}
	for _, s := range cat {
		p := byID[s.CompareWith]
		if p == nil || p.Protocol != s.Protocol {
			continue
		}
		// Beside each other, or with only their lesson's third member between.
		joined := func(x, y *scenarios.Scenario) bool { return x.CompareWith == y.ID || y.CompareWith == x.ID }
		d := pos[s.ID] - pos[p.ID]
		if d < -2 || d > 2 || (d == 2 || d == -2) && !joined(order[(pos[s.ID]+pos[p.ID])/2], s) && !joined(order[(pos[s.ID]+pos[p.ID])/2], p) {
			t.Errorf("%s is %d lines from its pair %s", s.ID, d, p.ID)
		}
	}
	for _, pair := range [][2]string{{"redis-del-after-expiry", "redis-cad-after-expiry"}, {"redlock-clock-jump", "redlock-no-clock-jump"},
		{"zk-session-expiry-pause", "zk-session-expiry-pause-fenced"}, {"db-lease-client-clock", "db-lease-db-clock"}} {
		if pos[pair[1]] != pos[pair[0]]+1 {
			t.Errorf("the fix %s does not follow the mistake %s", pair[1], pair[0])
		}
	}

	// The keys.
	drive(a, keyMsg("g"))
	for _, k := range []struct {
		key  string
		want func(tea.Msg) bool
	}{
		{"enter", func(m tea.Msg) bool { o, ok := m.(openMsg); return ok && !o.walk && !o.compare }},
		{"w", func(m tea.Msg) bool { o, ok := m.(openMsg); return ok && o.walk }},
		{"v", func(m tea.Msg) bool { o, ok := m.(openMsg); return ok && o.compare }},
		{"C", func(m tea.Msg) bool { _, ok := m.(checkMsg); return ok }},
		{"q", func(m tea.Msg) bool { _, ok := m.(tea.QuitMsg); return ok }},
	} {
		_, cmd := a.Update(keyMsg(k.key))
		if cmd == nil || !k.want(cmd()) {
			t.Errorf("%s in the browser does not do what it did", k.key)
		}
	}

	// The filter: an id's part, a summary's words, a source's word.
	for _, f := range []struct{ typed, want string }{
		{"del-after", "redis-del-after-expiry"},
		{"promoted replica", "redis-failover"},        // the summary
		{"kleppmann", "zk-session-expiry-pause"},      // the source's comment
		{"ensemble=z1,z2,z3", "zk-predecessor-watch"}, // the source's lines
	} {
		a := NewApp(Options{Catalogue: cat, Dark: true})
		keys := []string{"/"}
		for _, r := range f.typed {
			keys = append(keys, string(r))
		}
		scr := screen(a, 120, 40, append(keys, "enter")...)
		shown := browse(t, a)
		if !slices.ContainsFunc(shown, func(s *scenarios.Scenario) bool { return s.ID == f.want }) || len(shown) == len(cat) {
			t.Errorf("filtering %q does not keep %s (and only some): %d shown\n%s", f.typed, f.want, len(shown), scr)
		}
		for _, s := range shown {
			if text := strings.ToLower(s.ID + s.Summary + s.Source); !strings.Contains(text, strings.ToLower(f.typed)) {
				t.Errorf("filtering %q keeps %s", f.typed, s.ID)
			}
		}
		if scr := ansi.Strip(a.View().Content); !strings.Contains(scr, "filter: "+f.typed) {
			t.Errorf("the kept filter %q is not on screen:\n%s", f.typed, scr)
		}
		if drive(a, keyMsg("esc")); len(browse(t, a)) != len(cat) {
			t.Errorf("esc does not clear the filter %q", f.typed)
		}
	}
}
