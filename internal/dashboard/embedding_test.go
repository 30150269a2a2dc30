package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A developer names the origins that may embed the shop's payment form;
// an origin not written as a browser writes it is refused in words and
// nothing changes; a viewer's post is refused; the change is audited.
func TestEmbeddingOrigins(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, _ := startM5(t, b)
		dev := signedIn(t, env, shop, payd.RoleDeveloper)
		page := dev.get("/dashboard/test/developers/embedding")
		form := formOf(t, page.body, "embedding-form")
		form.Set("origins", "https://shop.example.com\n\n  http://localhost:3000  \n")
		if p := dev.post("/dashboard/test/developers/embedding", form); p.status != http.StatusSeeOther {
			t.Fatalf("save = %d\n%s", p.status, p.body)
		}
		origins := func() []any {
			s := env.AdminDo("GET", "/admin/v1/shops/"+shop.ID, nil).Expect(t, 200).JSON(t)
			list, _ := s["settings"].(map[string]any)["embed_origins"].([]any)
			return list
		}
		if got := origins(); len(got) != 2 || got[0] != "https://shop.example.com" || got[1] != "http://localhost:3000" {
			t.Fatalf("embed_origins = %v", got)
		}
		form.Set("origins", "https://shop.example.com/checkout")
		p := dev.post("/dashboard/test/developers/embedding", form)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="origins-error"`) {
			t.Fatalf("an origin with a path = %d\n%s", p.status, p.body)
		}
		if got := origins(); len(got) != 2 {
			t.Fatalf("a refused list changed the setting: %v", got)
		}
		viewer := signedIn(t, env, shop, payd.RoleViewer)
		if p := viewer.post("/dashboard/test/developers/embedding", byHand(t, viewer)); p.status != http.StatusForbidden {
			t.Fatalf("viewer's post = %d", p.status)
		}
		admin := signedIn(t, env, shop, payd.RoleAdmin)
		if audit := admin.get("/dashboard/audit"); !strings.Contains(audit.body, "Set embed origins") {
			t.Fatal("the change is not in the audit log")
		}
	})
}
