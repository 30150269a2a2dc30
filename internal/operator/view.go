package operator

import (
	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

// The operator API answers with view types of its own (…JSON, built by
// …View), never with domain structs: most of those are stored as
// documents encoded by their json tags (docs/architecture.md, "What is
// stored"), so renaming a stored field would otherwise rename a member of
// this API without anyone deciding to. Each view spells out its members,
// in the order and with the omitempty the operator API has always
// written; testdata/ pins them (TestViewsGolden).
//
// Where a domain type is itself one of the contract's objects
// (money.Amount, payd.Customer, payd.DisputeEvidence,
// payd.SettlementStatus, …), the view holds it as it is: its names are the
// contract's and cannot change without changing the merchant API too.

// views maps list through view. A nil list stays nil (written as null)
// and an empty one empty, as the operator API has always written them.
func views[T, V any](list []T, view func(T) V) []V {
	if list == nil {
		return nil
	}
	out := make([]V, len(list))
	for i, v := range list {
		out[i] = view(v)
	}
	return out
}

// mapOf maps m's values through view; a nil map stays nil.
func mapOf[K comparable, T, V any](m map[K]T, view func(T) V) map[K]V {
	if m == nil {
		return nil
	}
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = view(v)
	}
	return out
}

// page is a cursor page of an operator list.
type page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// pageOf is the page of p's items through view; a page without items has
// an empty list, never null.
func pageOf[T, V any](p payd.Page[T], print string, view func(T) V) page[V] {
	out := page[V]{Items: views(p.Items, view), NextCursor: httpapi.EncodeCursor(p.Next, print)}
	if out.Items == nil {
		out.Items = []V{}
	}
	return out
}

// items is the answer of an operator list that has no pages:
// {"items": [...]}.
type items[T any] struct {
	Items []T `json:"items"`
}
