package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 31, items 14 and 15: what the badge says when the data stayed safe
// while the lock's beliefs overlapped. "(fenced)" only for a resource that
// checks tokens: one that checks nothing kept the data safe only because the
// stale holder wrote nothing, and is not called fenced even when the
// operations carried tokens. And when no operation reached the resource, the
// badge says that instead.
func TestTheBadgeSaysHowTheDataStayedSafe(t *testing.T) {
	story := func(resource, ops string) string {
		return `protocol redis
node lockd redis
client alice redis-lock server=lockd ttl=1500ms fencing=incr validity-timer=off
client bob redis-lock server=lockd ttl=1500ms fencing=incr retry=250ms
` + resource + `
at 50ms alice acquire L
at 300ms pause alice for=3s
at 400ms bob acquire L
` + ops + `
at 5s bob release L
run until=6s
`
	}
	for _, tc := range []struct {
		name, resource, ops string
		want, not           string
	}{
		{"an unfenced resource", "resource ledger", "at 3200ms bob write ledger", "beliefs overlap; data safe ", "(fenced)"},
		{"a fenced resource", "resource ledger fencing=on", "at 3200ms bob write ledger\nat 3500ms alice write ledger", "beliefs overlap; data safe (fenced)", "no operation"},
		{"a resource nothing reached", "resource ledger fencing=on\nlink alice ledger loss=1\nlink bob ledger loss=1",
			"at 3200ms bob write ledger\nat 3500ms alice write ledger", "beliefs overlap; data safe; no operation reached ledger", "(fenced)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "badge.scn")
			if err := os.WriteFile(file, []byte(story(tc.resource, tc.ops)), 0o644); err != nil {
				t.Fatal(err)
			}
			head := strings.Split(screen(runApp(t, file, Options{})(), 160, 40, "G"), "\n")[0]
			if !strings.Contains(head, tc.want) || strings.Contains(head, tc.not) || !strings.Contains(head, "verdict SAFE") {
				t.Errorf("the header says\n%s\nwant %q and SAFE, not %q", head, tc.want, tc.not)
			}
		})
	}
}
