package zookeeper

import (
	"slices"
	"testing"
)

// Regression: protected names carry the session id before the sequence number;
// the queue is ordered by the sequence number alone (ZooKeeper recipes, "Locks":
// "the lowest sequence number").
func TestChildrenAreOrderedBySequenceNumber(t *testing.T) {
	tr := newTree()
	for _, p := range []string{"/L", "/L/lock-1010000002-0000000003", "/L/lock-1010000001-0000000004", "/L/lock-0000000001"} {
		tr.node(p)
	}
	want := []string{"lock-0000000001", "lock-1010000002-0000000003", "lock-1010000001-0000000004"}
	if got := tr.children("/L"); !slices.Equal(got, want) {
		t.Fatalf("children %v, want %v", got, want)
	}
}
