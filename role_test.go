package payd

import "testing"

func TestRoleCan(t *testing.T) {
	t.Parallel()
	all := []Permission{PermRead, PermPayments, PermDisputes, PermLinks, PermPayouts, PermDevelopers, PermUsers}
	want := map[Role][]Permission{
		RoleAdmin:     all,
		RoleSupport:   {PermRead, PermPayments, PermDisputes, PermLinks},
		RoleDeveloper: {PermRead, PermDevelopers},
		RoleViewer:    {PermRead},
		"owner":       nil,
	}
	for role, perms := range want {
		allowed := map[Permission]bool{}
		for _, p := range perms {
			allowed[p] = true
		}
		for _, p := range all {
			if got := role.Can(p); got != allowed[p] {
				t.Errorf("%q.Can(%q) = %v, want %v", role, p, got, allowed[p])
			}
		}
	}
	for _, s := range []string{"admin", "support", "developer", "viewer"} {
		if r, err := ParseRole(s); err != nil || string(r) != s {
			t.Errorf("ParseRole(%q) = %q, %v", s, r, err)
		}
	}
	for _, s := range []string{"", "Admin", "owner"} {
		if _, err := ParseRole(s); ErrorCodeOf(err) != CodeInvalidRequest {
			t.Errorf("ParseRole(%q): %v, want invalid_request", s, err)
		}
	}
}
