package payd

import "time"

// The accounts of people who sign in are package account's (its Service:
// passwords, second factors, sessions, the sign-in guard, and the
// management of the merchants' dashboard users). What stays here is what
// the store speaks (Tx's User, Session and SignInGuard methods) and what
// the domain itself reads: the Actor of a change, whose role permit
// checks with the user read afresh in the change's transaction.

// User is a person who signs in to the dashboard on behalf of a merchant.
// Its secrets (password hash, second-factor secret, setup token) are kept
// apart in UserCredentials, which never leaves the service.
type User struct {
	ID         string `json:"id"`
	MerchantID string `json:"merchant_id"`
	Email      string `json:"email"`
	Role       Role   `json:"role"`
	// HasPassword is false until the user has used a setup link.
	HasPassword bool       `json:"has_password"`
	TOTPEnabled bool       `json:"totp_enabled"`
	CreatedAt   time.Time  `json:"created_at"`
	DisabledAt  *time.Time `json:"disabled_at,omitempty"`
}

// UserCredentials are a user's secrets, read and written only by the
// account service.
type UserCredentials struct {
	UserID string
	// PasswordHash is the argon2id hash in PHC string form; "" before the
	// first password.
	PasswordHash string
	// TOTPSecret is the base32 secret of the second factor, "" when it is
	// off; TOTPPending is a secret being enrolled; TOTPLastStep is the
	// time step of the last code accepted, so a code is used once.
	TOTPSecret   string
	TOTPPending  string
	TOTPLastStep int64
	// SetupHash is the SHA-256 of the one-time setup token, nil when there
	// is none; SetupExpiresAt its expiry.
	SetupHash      []byte
	SetupExpiresAt *time.Time
}

// Actor is who acts through the dashboard: a signed-in user and the
// address the request came from. Pages set Principal.Actor; user
// management methods take it, nil meaning the operator.
type Actor struct {
	UserID, Email, Addr string
}

// AccountKind names the kind of account a session or a sign-in is of:
// a merchant's dashboard user or one of the operator's staff. The kinds
// share the credentials core (package account) and keep their sessions
// apart, so a session of one kind never opens the other's pages.
type AccountKind string

// The kinds of account.
const (
	AccountUser  AccountKind = "user"
	AccountStaff AccountKind = "staff"
)

// SessionState says what a session may do.
type SessionState string

// Session states. A session in second_factor or enroll may do nothing but
// finish signing in; only an active one reaches the pages.
const (
	// SessionActive: signed in.
	SessionActive SessionState = "active"
	// SessionSecondFactor: the password was right, the second factor's
	// code is awaited.
	SessionSecondFactor SessionState = "second_factor"
	// SessionEnroll: a second factor is required (by the merchant, or
	// always for staff) and this account has not set one up; only
	// enrolment is allowed.
	SessionEnroll SessionState = "enroll"
)

// SessionStateAll returns every session state.
func SessionStateAll() []SessionState {
	return []SessionState{SessionActive, SessionSecondFactor, SessionEnroll}
}

// Session is a signed-in browser. Only the SHA-256 of its token (the
// cookie's value) is stored; ID is its public name, for lists and the
// audit log, never the cookie.
type Session struct {
	ID string `json:"id"`
	// Kind is whose session it is; UserID names the user or the staff
	// member, and MerchantID is "" for staff.
	Kind       AccountKind  `json:"-"`
	UserID     string       `json:"user_id"`
	MerchantID string       `json:"merchant_id"`
	State      SessionState `json:"state"`
	CreatedAt  time.Time    `json:"created_at"`
	LastSeenAt time.Time    `json:"last_seen_at"`
	Addr       string       `json:"addr"`
	UserAgent  string       `json:"user_agent"`
	// FailedSignIns is how many failed attempts (passwords and codes)
	// the account had between its previous sign-in and the one that
	// opened this session: the pages tell the owner.
	FailedSignIns int `json:"failed_sign_ins,omitempty"`
	// CodeFailures counts the wrong codes given to a session awaiting
	// the second factor; account.SignInPolicy.CodeFailures of them end
	// it.
	CodeFailures int `json:"-"`
}

// SessionDeleteOldestParams names the sessions SessionDeleteOldest keeps:
// of the user's active sessions (Active) or of its others, the one named
// KeepID and the Keep-1 others most recently seen. Sessions of the other
// kind are left alone.
type SessionDeleteOldestParams struct {
	Kind   AccountKind
	UserID string
	KeepID string
	Keep   int
	Active bool
}

// SignInGuard is the record of failed sign-ins of one account name (a
// normalized email). It is kept whether or not a user has that email:
// an unknown email is counted, locked and written exactly as a known one,
// so neither the answer, its time nor the writes tell whether an account
// exists. Only the SHA-256 of the email is stored, so guessed emails of
// strangers are not kept in the clear.
//
// Both steps of signing in count against it: a wrong password and a wrong
// second-factor code. Each attempt is counted before it is checked and
// given back when it proves right, so attempts in flight hold their count
// and concurrency cannot overdraw the budget. Its rules are package
// account's (guard.go there).
type SignInGuard struct {
	Key string
	// Failures are the failures counted since the last lock ended (or
	// the last sign-in); WindowStart is when the latest was counted.
	Failures    int
	WindowStart time.Time
	// LockedUntil, when set and ahead, refuses every attempt; Lockouts
	// counts the locks since the last sign-in, and each doubles the next.
	LockedUntil time.Time
	Lockouts    int
	// SinceSignIn counts the failures since the account last signed in,
	// told to its owner at the next sign-in; LastFailureAt and
	// LastFailureAddr say when and from where the latest came.
	SinceSignIn     int
	LastFailureAt   time.Time
	LastFailureAddr string
	UpdatedAt       time.Time
}
