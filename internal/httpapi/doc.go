// Package httpapi is the HTTP side both JSON APIs share, the merchant API
// (package api) and the operator API (package operator): reading and
// decoding request bodies under the one-reading rules, the Idempotency-Key
// header, the request frame (request ids, access log, metrics, panic
// recovery), the source address and the throttle of failed
// authentications, list parameters and cursors, amounts as requests carry
// them, and the Error object with its table of HTTP statuses.
//
// The domain (package payd) knows nothing of HTTP: it returns typed
// results and *payd.Error values, and this package turns them into
// answers. Neither API imports the other; both import this package.
package httpapi
