// Package dashboard serves the merchant dashboard.
package dashboard

// Prefix is where the dashboard's pages live on the API listener.
const Prefix = "/dashboard/"

// SetupPath is the page where a new user sets a password: SetupPath +
// the one-time setup token as the path's last segment.
const SetupPath = "/dashboard/setup/"

// SignInPath is the sign-in form.
const SignInPath = "/dashboard/signin"
