// Package sandbank is the sandbox bank: a payment provider built into the
// service for test keys. It behaves like a remote bank — it keeps its own
// attempts, shows the payer its own pages (card with 3-D Secure, the apps
// of the QR methods SBP and kz_qr), and reports outcomes only through
// signed asynchronous notifications that the core verifies like any
// provider's — but no money moves. Outcomes follow
// the contract's sandbox tables: the amount's last two digits, the
// `sandbox_*` metadata overrides, the page buttons, and simulate.
package sandbank
