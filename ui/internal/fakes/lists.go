package fakes

import (
	"context"
	"maps"
	"slices"

	"ilinkdash/ui/common"
	"ilinkdash/ui/views/tab"
)

// The fake's store of plain-data lists: a list resource (tab.List) whose
// items the fake only keeps, not computes, is stored by its declaration's
// key and listed by Stored, so its fake is one line. The topic, group and
// queue lists are computed from the fake's model (offsets that Advance
// moves, rates that wobble, depths that puts and takes change), so they
// keep their own methods.

// Store puts items into the fake's store of list l, by l.Key: an item
// whose key is stored already replaces it.
func Store[T any](s *Source, l tab.List[T], items ...T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stored == nil {
		s.stored = map[common.ResID]map[string]any{}
	}
	m := s.stored[l.ID]
	if m == nil {
		m = map[string]any{}
		s.stored[l.ID] = m
	}
	for _, it := range items {
		m[l.Key(it)] = it
	}
}

// Unstore removes the items of list l with keys.
func Unstore[T any](s *Source, l tab.List[T], keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		delete(s.stored[l.ID], k)
	}
}

// Stored lists the stored items of l in key order, as a list method of
// the fake named method (Fail, Block and Calls take that name).
func Stored[T any](s *Source, ctx context.Context, method string, l tab.List[T]) ([]T, error) {
	if err := s.enter(ctx, method); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	m := s.stored[l.ID]
	out := make([]T, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k].(T))
	}
	return out, nil
}
