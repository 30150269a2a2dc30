package operator_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func TestOperatorUsers(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		m := env.AdminDo("POST", "/admin/v1/merchants", map[string]any{"name": "Acme"}).Expect(t, 201).JSON(t)
		mid := m["id"].(string)
		base := "/admin/v1/merchants/" + mid

		u := env.AdminDo("POST", base+"/users", map[string]any{"email": " Staff@Example.test", "role": "admin"}).Expect(t, 201).JSON(t)
		uid, _ := u["id"].(string)
		if !payd.ValidID(payd.PrefixUser, uid) || u["email"] != "staff@example.test" || u["role"] != "admin" || u["has_password"] != false {
			t.Fatalf("created user %v", u)
		}
		link, _ := u["setup_url"].(string)
		prefix := env.Accounts.SetupURL("")
		if !strings.HasPrefix(link, "http") || !strings.HasPrefix(link, prefix) || !strings.HasSuffix(prefix, "/dashboard/setup/") {
			t.Fatalf("setup_url %q, want %q + token", link, prefix)
		}
		if _, err := url.Parse(link); err != nil {
			t.Fatal(err)
		}
		env.AdminDo("POST", base+"/users", map[string]any{"email": "STAFF@example.test", "role": "viewer"}).ExpectError(t, 409, payd.CodeEmailTaken, "email")
		env.AdminDo("POST", base+"/users", map[string]any{"email": "x@example.test", "role": "owner"}).ExpectError(t, 400, payd.CodeInvalidRequest, "role")
		env.AdminDo("POST", base+"/users", map[string]any{"email": "x@example.test", "role": "viewer", "name": "X"}).ExpectError(t, 400, payd.CodeInvalidRequest, "name")
		env.AdminDo("POST", "/admin/v1/merchants/"+noMerchant+"/users", map[string]any{"email": "x@example.test", "role": "viewer"}).ExpectError(t, 404, payd.CodeNotFound, "")

		list := env.AdminDo("GET", base+"/users", nil).Expect(t, 200).JSON(t)["items"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["id"] != uid {
			t.Fatalf("users %v", list)
		}
		if _, ok := list[0].(map[string]any)["password_hash"]; ok {
			t.Error("the list shows a password hash")
		}

		// A fresh link replaces the first; the first no longer sets a
		// password.
		fresh := env.AdminDo("POST", base+"/users/"+uid+"/setup_link", nil).Expect(t, 200).JSON(t)
		freshLink, _ := fresh["setup_url"].(string)
		if freshLink == link || !strings.HasPrefix(freshLink, prefix) || fresh["id"] != uid {
			t.Fatalf("fresh link %v", fresh)
		}
		ctx := t.Context()
		if _, err := env.Accounts.SetPassword(ctx, strings.TrimPrefix(link, prefix), "a long enough password", "192.0.2.1"); payd.ErrorCodeOf(err) != payd.CodeNotFound {
			t.Errorf("the replaced link: %v", err)
		}
		if _, err := env.Accounts.SetPassword(ctx, strings.TrimPrefix(freshLink, prefix), "a long enough password", "192.0.2.1"); err != nil {
			t.Errorf("the fresh link: %v", err)
		}
		other := env.AdminDo("POST", "/admin/v1/merchants", map[string]any{"name": "Other"}).Expect(t, 201).JSON(t)["id"].(string)
		env.AdminDo("POST", "/admin/v1/merchants/"+other+"/users/"+uid+"/setup_link", nil).ExpectError(t, 404, payd.CodeNotFound, "")

		// The merchant's second-factor policy is a merchant setting.
		got := env.AdminDo("PATCH", base, map[string]any{"require_second_factor": true}).Expect(t, 200).JSON(t)
		if got["require_second_factor"] != true {
			t.Errorf("merchant after the policy change %v", got)
		}

		// The audit log: the invitation, the link, the password; newest
		// first, in keyset pages.
		page := env.AdminDo("GET", base+"/audit?limit=2", nil).Expect(t, 200).JSON(t)
		items := page["items"].([]any)
		next, _ := page["next_cursor"].(string)
		if len(items) != 2 || next == "" {
			t.Fatalf("audit page %v", page)
		}
		rest := env.AdminDo("GET", base+"/audit?limit=2&cursor="+url.QueryEscape(next), nil).Expect(t, 200).JSON(t)
		items = append(items, rest["items"].([]any)...)
		var actions []string
		for _, it := range items {
			e := it.(map[string]any)
			actions = append(actions, e["action"].(string))
			if e["object_id"] != uid {
				t.Errorf("audit entry %v: want object_id %s", e, uid)
			}
		}
		if want := "set password,issue setup link,invite user"; strings.Join(actions, ",") != want {
			t.Errorf("audit actions %v, want %s", actions, want)
		}
		env.AdminDo("GET", "/admin/v1/merchants/"+noMerchant+"/audit", nil).ExpectError(t, 404, payd.CodeNotFound, "")
	})
}
