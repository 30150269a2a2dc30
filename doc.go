// Package payd is the domain of the merchant payments service: shops and
// their keys, payments, refunds, disputes, payment links, payouts, events
// and the ledger, and the rules that move them between states. It holds the
// Service that every adapter calls and the Store and Tx interfaces the
// storage adapters implement; it imports no adapter and speaks no wire (no
// net/http, no JSON decoding of requests, no routes: httpapi, api and
// operator do that).
//
// The contract these types serve is the Merchant Payments API v1; field and
// error names follow it exactly so that the JSON the adapters write is the
// contract's JSON.
//
// # Where each part of the contract lives
//
// Conventions, errors and limits:
//   - Errors (the Error object, the closed code list): error.go
//   - Idempotency (keys, replays, in-progress): idempotency.go, service.go (Service.idempotent)
//   - Lists (cursors, filters): list.go; Scope (another shop's object is not found): scope.go
//     and, for the dashboard's addresses, which of a merchant's shops an object is in: locate.go
//   - Text limits of request fields: text.go; identifiers: id.go; time: clock.go; languages of
//     the payer's pages: locale.go
//
// Resources, states and endpoints:
//   - Payment (fields, View): payment.go; its transition table and every status change: payment_status.go;
//     the story the dashboard tells of one, and its home page's totals: payment_story.go
//   - POST /payments (checks, return_url, the provider attempt): payment_create.go; QR: payment_qr.go
//   - GET /payments: payment_read.go; capture and cancel: payment_capture.go; expiry: expiry.go, payment_status.go
//   - Provider attempts and routes (the cascade): provider.go, provider_route.go; notifications, status
//     queries and discrepancies: provider_notification.go
//   - Pre-check payment.authorize_request: precheck.go
//   - Refunds and their balance rule (coverage): refund.go
//   - Balance: balance.go; the ledger's postings: ledger_post.go; its invariants: ledger_check.go
//   - Settlements (registers, settlement.paid): settlement.go, settlement_schedule.go, the days that
//     moved money: settlement_day.go; holidays: holiday.go
//   - Settlement status (freezes): freeze.go; deposits: deposit.go
//   - Disputes (stage M2): dispute.go (types, table, reads), dispute_open.go, dispute_status.go,
//     dispute_evidence.go (both evidence steps), dispute_evidence_read.go (a merchant's download of an
//     attached file), dispute_submit.go, dispute_money.go (holds and
//     chargebacks), dispute_expiry.go, dispute_notification.go, dispute_sandbox.go,
//     dispute_operator.go, dispute_settings.go
//   - Payment links (stage M5): link.go, link_create.go, link_state.go, link_pay.go (the hosted page's payment)
//   - Payouts (stage M5): payout.go, payout_create.go, payout_status.go, payout_destination.go, payout_provider.go
//   - Payment methods: method.go; Shop: shop.go, shopview.go; merchants: merchant.go; stages: stage.go
//   - Hosted checkout: checkout.go; the embedded form (stage M5): embed.go; sandbox (simulate, the bank's attempts): sandbox.go;
//     its reset: sandbox_reset.go, its batches: sandbox_batch.go; who moves the test clock: sandbox_clock.go
//
// Authentication, events and webhooks:
//   - Keys and Basic authentication: key.go, auth.go, auth_cache.go; the record of a key's last use: key_use.go;
//     ending an older key's overlap early: key_expire.go
//   - Events (types, bodies, GET /events): event.go; resend and the attempt log: event_resend.go;
//     the sandbox's feed (GET /test/events): event_feed.go
//   - Webhook endpoints: webhook_endpoint.go, a test delivery to one (the newest event again): webhook_ping.go;
//     deliveries (queue, one attempt, outcomes): delivery.go, delivery_attempt.go (the sending
//     loop is package dispatch)
//
// The merchant dashboard's users (outside the contract; docs/dashboard.md):
//   - Roles, permissions and the one table of the permission each change needs (Service.permit,
//     AllowActor): permission.go
//   - Users, their credentials, sessions and sign-in guards as the store keeps them, and the
//     Actor of a change: account.go; signing in and the management of users are package
//     account's (internal/account)
//   - The audit log (every change made with a Principal.Actor): audit.go
//
// The operator's staff (docs/operator.md, "Staff and roles"):
//   - Staff roles, the one table of their permissions, staff members and their API tokens as
//     the store keeps them, the StaffActor of a request and the break-glass token: staff.go;
//     their accounts are package account's (internal/account)
//   - The operator audit log, written in the change's own transaction through the store every
//     service works with (OperatorAct, OperatorAudited): operator_audit.go
//   - Four eyes: the one table of the actions that take a second person, and proposals: four_eyes.go
//
// Operator configuration (shops, tariffs, limits): admin.go. Periodic work and its budget:
// periodic.go. Storage: store.go; the
// secrets it keeps sealed under the key-encryption key, and their resealing after the
// key's rotation: reseal.go (the sealing is package sqlstore's, docs/security.md).
package payd
