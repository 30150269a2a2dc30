// Package client is payd's Go client: the merchant API of the contract
// (openapi/openapi.yaml) as typed calls.
//
// It has two layers. openapi.gen.go is generated from the document by
// oapi-codegen (`make generate`): every type of the contract and a raw
// method per operation (Client.Raw). The hand-written layer above it is
// what a merchant's code calls:
//
//   - New(baseURL, shopID, secretKey, opts...) makes a Client; every call
//     takes a context, and HTTPClient sets the *http.Client used.
//   - Every POST and PATCH carries an Idempotency-Key: a random one unless
//     the caller gives its own (WithIdempotencyKey); a retry sends the same
//     key, so it is a replay and never moves money twice.
//   - Network errors, 409 idempotency_in_progress, 429 and 503 are retried
//     with exponential backoff and jitter, after the Retry-After the
//     service gives, at most MaxRetries times and never past the context's
//     deadline.
//   - Every answer that is not 2xx is an *Error (errors.As) with the
//     contract's Code, Parameter, Description, RequestID and the HTTP
//     status; an operation of a later stage (501) also matches
//     ErrNotImplemented (errors.Is) and names the Stage it needs.
//   - Lists are iterators over every page: for p, err := range
//     c.ListPayments(ctx, params) follows next_cursor with the same
//     filters.
//   - WaitPayment reads a payment until it leaves pending: an outcome
//     (SimulatePayment's, the payer's) arrives a moment after the call
//     that caused it, and a refund or capture needs it.
//   - ConstructEvent verifies a webhook delivery's signature and age and
//     decodes its Event, whose Data.Object is a *Payment, *Refund,
//     *Dispute, *Settlement, *SettlementStatus, *PaymentLink or *Payout by
//     its object_type.
//
// The User-Agent is payd-go/Version, after the application's name when
// AppInfo gives one. A Client has no global state and is safe for
// concurrent use.
package client
