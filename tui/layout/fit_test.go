package layout_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/locksim/locksim/tui/layout"
)

// `locksim run --width N`: the timeline fits N columns, and loses no word.

func TestFittedTimelineFitsAndKeepsEveryWord(t *testing.T) {
	tl := timeline(t)
	var full strings.Builder
	if err := tl.WriteFitted(&full, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if full.String() != tl.String() {
		t.Fatal("width 0 must be the unlimited timeline")
	}
	var sentences []string
	for r := range tl.Len() {
		sentences = append(sentences, tl.Row(r).Text)
	}
	words := strings.Join(strings.Fields(strings.Join(sentences, " ")), " ")
	for _, width := range []int{50, 60, 80} {
		var b strings.Builder
		if err := tl.WriteFitted(&b, 0, 0, width); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		prefix := tl.TimeWidth() + 1 + 2*tl.FitColumnWidth(width) + 2
		var said []string
		for _, l := range lines[1:] {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: a line of %d runes: %q", width, n, l)
			}
			if r := []rune(l); len(r) > prefix {
				said = append(said, string(r[prefix:]))
			}
		}
		if got := strings.Join(strings.Fields(strings.Join(said, " ")), " "); got != words {
			t.Errorf("width %d: the sentences lost or changed words:\n got %s\nwant %s", width, got, words)
		}
		// c1 believes from its first command to its stop: a wrapped row in
		// between keeps c1's bar on its continuation lines.
		col := tl.TimeWidth() + 1
		barred := false
		for _, l := range lines[1:] {
			if r := []rune(l); len(r) > col && strings.TrimSpace(string(r[:col])) == "" && r[col] == '┃' {
				barred = true
			}
		}
		if !barred {
			t.Errorf("width %d: no continuation line carries c1's bar:\n%s", width, b.String())
		}
	}
}

func TestColumnsShrinkToFit(t *testing.T) {
	tl := timeline(t)
	if w := tl.FitColumnWidth(0); w != layout.ColumnWidth {
		t.Errorf("unlimited: columns of %d, want %d", w, layout.ColumnWidth)
	}
	if w := tl.FitColumnWidth(1000); w != layout.ColumnWidth {
		t.Errorf("wide: columns of %d, want %d", w, layout.ColumnWidth)
	}
	if w := tl.FitColumnWidth(50); w >= layout.ColumnWidth || w < layout.MinColumnWidth {
		t.Errorf("50 columns: columns of %d", w)
	}
	// Too narrow for any sentence: lines are cut at the width instead.
	var b strings.Builder
	if err := tl.WriteFitted(&b, 0, 0, 20); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 20 {
			t.Errorf("width 20: a line of %d runes: %q", n, l)
		}
	}
}
