package tui

import (
	"regexp"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// At a laptop's 80x24, ? lists every key of the screen on its first page, each
// with its words: before, bubbles/help cut the two columns that did not fit,
// and w, p, r, b, c, x, tab and q were not on it.
func TestHelpListsEveryKeyAt80x24(t *testing.T) {
	for _, tc := range []struct {
		name string
		app  func() *App
		keys func(KeyMap) [][]key.Binding
	}{
		{"one run", runApp(t, "fencing-token", Options{}), func(k KeyMap) [][]key.Binding { return k.ScenarioHelp(false).FullHelp() }},
		{"compare", compareApp(t, "redlock-clock-jump", "redlock-no-clock-jump"), func(k KeyMap) [][]key.Binding { return k.CompareHelp().FullHelp() }},
	} {
		s := screen(tc.app(), 80, 24, "?")
		listed := func(k, words string) bool {
			return regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(k) + `\s+` + regexp.QuoteMeta(words)).MatchString(s)
		}
		for _, g := range tc.keys(DefaultKeyMap()) {
			for _, b := range g {
				if b.Enabled() && b.Help().Key != "esc" && !listed(b.Help().Key, b.Help().Desc) {
					t.Errorf("%s: ? at 80x24 does not list %s %q:\n%s", tc.name, b.Help().Key, b.Help().Desc, s)
				}
			}
		}
		if tc.name != "one run" {
			continue
		}
		for _, kw := range [][2]string{{"w", "walk"}, {"p", "presentation"}, {"r", "reveal"}, {"b", "quiet"}, {"i", "inject"}, {"q", "quit"}} {
			if !listed(kw[0], kw[1]) {
				t.Errorf("? at 80x24 does not list %s %s:\n%s", kw[0], kw[1], s)
			}
		}
	}
}

// i is the what-if key ("inject a fault here"): bound, listed, and switched
// off nowhere.
func TestInjectIsBound(t *testing.T) {
	k := DefaultKeyMap()
	if !key.Matches(keyMsg("i").(tea.KeyPressMsg), k.Inject) || k.Inject.Help() != (key.Help{Key: "i", Desc: "inject a fault here"}) {
		t.Fatalf("Inject is %+v", k.Inject.Help())
	}
	a := runApp(t, "fencing-token", Options{Walk: true})()
	screen(a, 120, 40)
	if !a.run.keys.Inject.Enabled() || !strings.Contains(strings.Join(func() (out []string) {
		for _, g := range a.run.keys.ScenarioHelp(true).FullHelp() {
			for _, b := range g {
				out = append(out, b.Help().Key+" "+b.Help().Desc)
			}
		}
		return
	}(), "\n"), "i inject a fault here") {
		t.Error("a run's help does not list i inject a fault here")
	}
}
