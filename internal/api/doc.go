// Package api is the merchant JSON API (`/v1`): routing, authentication
// with the shop's keys, rate limits, and the handlers. Each handler decodes
// (package httpapi: bodies, Idempotency-Key, list cursors), calls one
// Service method and writes the result or the Error object through
// httpapi; the rules live in the domain.
package api
