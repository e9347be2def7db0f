package scenarios

import (
	"slices"
	"strings"
)

// Group is one protocol's part of the catalogue, by lesson.
type Group struct {
	Protocol string        // the protocol, as its scenarios name it
	Lessons  [][]*Scenario // each a mistake and its fixes, the worst first
}

// Lessons orders the catalogue (already grouped by protocol, in a course's
// order) by lesson: in each protocol, the scenarios that compare-with joins
// (its lessons), each lesson's worst verdict first (UNSAFE, STUCK, SAFE, then
// the one expecting more violations), then what it names and what names it;
// lessons and lone scenarios in id order. The terminal's browser and the
// playground's picker both show it.
func Lessons(cat []*Scenario) []Group {
	byID := map[string]*Scenario{}
	for _, s := range cat {
		byID[s.ID] = s
	}
	worse := func(a, b *Scenario) int {
		rank := map[string]int{"UNSAFE": 0, "STUCK": 1}
		ra, ok := rank[a.ExpectedVerdict()]
		if !ok {
			ra = 2
		}
		rb, ok := rank[b.ExpectedVerdict()]
		if !ok {
			rb = 2
		}
		if ra != rb {
			return ra - rb
		}
		if va, vb := violations(a), violations(b); va != vb {
			return vb - va
		}
		return strings.Compare(a.ID, b.ID)
	}
	var groups []Group
	for from := 0; from < len(cat); {
		proto := cat[from].Protocol
		to := from
		for to < len(cat) && cat[to].Protocol == proto {
			to++
		}
		group := slices.Clone(cat[from:to])
		slices.SortFunc(group, func(a, b *Scenario) int { return strings.Compare(a.ID, b.ID) })
		// partners: the same protocol's scenarios it names, then those naming it.
		partners := func(s *Scenario) []*Scenario {
			var out []*Scenario
			if p := byID[s.CompareWith]; p != nil && p.Protocol == proto {
				out = append(out, p)
			}
			for _, o := range group {
				if o.CompareWith == s.ID && !slices.Contains(out, o) {
					out = append(out, o)
				}
			}
			return out
		}
		placed := map[string]bool{}
		var lessons [][]*Scenario
		for _, s := range group {
			if placed[s.ID] {
				continue
			}
			var lesson []*Scenario // s's component of the compare-with graph
			for todo := []*Scenario{s}; len(todo) > 0; todo = todo[1:] {
				if !placed[todo[0].ID] {
					placed[todo[0].ID] = true
					lesson = append(lesson, todo[0])
					todo = append(todo, partners(todo[0])...)
				}
			}
			// From the worst, each member followed by its partners (breadth first).
			first := slices.MinFunc(lesson, worse)
			order, seen := []*Scenario{first}, map[string]bool{first.ID: true}
			for i := 0; i < len(order); i++ {
				for _, p := range partners(order[i]) {
					if !seen[p.ID] {
						seen[p.ID] = true
						order = append(order, p)
					}
				}
			}
			lessons = append(lessons, order)
		}
		slices.SortStableFunc(lessons, func(a, b []*Scenario) int { return strings.Compare(a[0].ID, b[0].ID) })
		groups = append(groups, Group{Protocol: proto, Lessons: lessons})
		from = to
	}
	return groups
}

// violations is how many invariants a scenario expects to be broken.
func violations(s *Scenario) int {
	n := 0
	for _, e := range s.Expects {
		if e.Kind == ExpectViolated {
			n++
		}
	}
	return n
}
