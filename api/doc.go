// Package api is the merchant JSON API (`/v1`): routing, authentication,
// rate limits, request decoding, idempotency keys, list cursors and the
// mapping of domain errors to the contract's Error object. Each handler
// decodes, calls one Service method and writes the result; the rules live
// in the domain.
package api
