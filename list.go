package payd

import "time"

// Page sizes of the contract (Conventions: Lists).
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// Cursor is a position in a list sorted by created_at and id, both
// descending. A list sorted by another time says so, and keeps that time
// in CreatedAt (the dispute queue: the evidence deadline, ascending). Its
// wire form is the API's business.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

// ListParams is the generic part of every list request.
type ListParams struct {
	Limit int
	After *Cursor
}

// Page is one page of a list; Next is nil at the end.
type Page[T any] struct {
	Items []T
	Next  *Cursor
}

// TimeRange filters by created_at: GTE inclusive, LT exclusive.
type TimeRange struct {
	GTE *time.Time
	LT  *time.Time
}

// EventListParams filters `GET /events`.
type EventListParams struct {
	ListParams
	ShopID   string
	Test     bool
	Type     EventType
	ObjectID string
	Created  TimeRange
}

// MerchantListParams filters the operator's merchant list.
type MerchantListParams struct {
	ListParams
}

// ShopListParams filters the operator's shop list.
type ShopListParams struct {
	ListParams
	MerchantID string
}

// PaymentListParams filters `GET /payments`.
type PaymentListParams struct {
	ListParams
	ShopID  string
	Test    bool
	OrderID string
	Status  PaymentStatus
	// Method filters by Payment.KnownMethod; the dashboard's filter, not
	// the API's.
	Method  string
	Created TimeRange
}
