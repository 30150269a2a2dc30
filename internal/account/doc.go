// Package account is every account of a person who signs in to payd: the
// credentials core, written once, and the kinds of account built on it.
//
// The core does not care whose account it is: the password's KDF
// (argon2id, with a bound on the checks that run at once, password.go),
// the second factor (TOTP enrolment and codes used once, totp.go), session
// tokens and their idle and absolute limits and per-user cap (session.go),
// the guard of failed sign-ins and its locks (guard.go), and the sign-in
// path that puts them in order (signin.go).
//
// The merchants' dashboard users are its first kind (user.go: invitation,
// setup links, roles, disabling, the merchant's second-factor policy).
// Who may manage them is the domain's one table of permissions
// (payd.AllowActor), and every change is written to the merchant's audit
// log in the change's transaction. The operator's staff are the second
// (staff.go, staff_signin.go): what differs between the kinds is the
// small interface kind (kind.go), which the core asks; docs/architecture.md,
// "Accounts".
package account
