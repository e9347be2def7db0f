package tui

import (
	"regexp"
	"strings"
	"testing"
)

// At 80 columns the header keeps the seed, the row and "? help" whole, in
// every mode, with whatever badge: the other parts give way first (the verdict's
// word, the badge's "so far", the scenario's id, the modes' boxes). Before,
// they were cut off the end.
func TestHeaderKeepsSeedRowAndHelpAt80(t *testing.T) {
	for _, tc := range []struct {
		id   string
		opt  Options
		keys []string
	}{
		{"redlock-clock-jump", Options{}, []string{"n", "n"}},           // red: two invariants
		{"redlock-clock-jump", Options{}, []string{"p", "n", "n", "b"}}, // presentation, quiet off again
		{"fencing-token", Options{}, []string{"G"}},                     // amber, fenced
		{"zk-session-expiry-pause", Options{Walk: true}, []string{"space", "space", "space", "space", "p"}},
		{"3pc-partition", Options{Walk: true}, []string{"space", "space", "r"}},
		{"redis-happy", Options{}, nil},
	} {
		for _, w := range []int{80, 100} {
			a := runApp(t, tc.id, tc.opt)()
			s := screen(a, w, 24, tc.keys...)
			head := strings.Split(s, "\n")[0]
			row := regexp.MustCompile(`seed 1  row \d+/\d+  +\? help`)
			if !row.MatchString(head) || strings.Contains(head, "…") {
				t.Errorf("%s %v at %d columns: the header is %q, want seed, row and ? help whole", tc.id, tc.keys, w, head)
			}
			if !strings.Contains(head, "t=") || !strings.Contains(head, "VIOLATED") && !strings.Contains(head, "violation") &&
				!strings.Contains(head, "overlap") {
				t.Errorf("%s %v at %d columns: the header %q lost the time or the badge", tc.id, tc.keys, w, head)
			}
		}
	}
}
