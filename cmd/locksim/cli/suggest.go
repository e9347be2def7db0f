package cli

import (
	"strings"

	"github.com/locksim/locksim/scenarios"
)

// didYouMean is " (did you mean X?)" when s looks like a misspelling of one of
// cands, else "": every flag value the command line refuses says what it may
// have meant, as the scenario language does for its words.
func didYouMean(s string, cands []string) string {
	if c := scenarios.Closest(s, cands); c != "" && c != s {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// eachDidYouMean is didYouMean for the first item of a comma-separated list
// that is not among cands.
func eachDidYouMean(list string, cands []string) string {
	for _, w := range strings.Split(list, ",") {
		if w = strings.TrimSpace(w); w != "" && scenarios.Closest(w, cands) != w {
			return didYouMean(w, cands)
		}
	}
	return ""
}
