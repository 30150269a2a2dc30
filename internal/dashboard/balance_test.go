package dashboard_test

import (
	"encoding/csv"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// The balance page shows the buckets and the registers; a register's page
// lists its entries, and its CSV has the rows of the API's report; another
// merchant's register is not found.
func TestBalanceAndSettlement(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{"settlement_delay_days": 30}).Expect(t, 200)
		day := env.Clock.Now().In(payd.RegionRU.Location()).Format(time.DateOnly)
		pay := paidPayment(t, c, "1000.00", "order-set", false)
		env.Clock.Advance(48 * time.Hour)
		paydtest.Eventually(t, "the release", func() bool {
			items := c.Get("/v1/balance").Expect(t, 200).JSON(t)["items"].([]any)
			return len(items) == 1 && items[0].(map[string]any)["available"].(map[string]any)["value"] != "0.00"
		})
		var st struct{ ID string }
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/settlements",
			map[string]any{"test": true, "currency": "RUB", "date": day}).Expect(t, 201).Decode(t, &st)

		v := newVisitor(t, env)
		v.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
		p := v.get("/dashboard/test/balance")
		if p.status != 200 || !strings.Contains(p.body, `id="balance"`) || !strings.Contains(p.body, "/dashboard/test/settlements/"+st.ID) {
			t.Fatalf("balance page = %d\n%s", p.status, p.body)
		}
		if lp := v.get("/dashboard/balance"); lp.status != 200 || strings.Contains(lp.body, st.ID) {
			t.Fatalf("the live balance page shows a test register: %d", lp.status)
		}
		sp := v.get("/dashboard/test/settlements/" + st.ID)
		if sp.status != 200 || !strings.Contains(sp.body, pay) || !regexp.MustCompile(`id="net">[^<]*993`).MatchString(sp.body) {
			t.Fatalf("settlement page = %d\n%s", sp.status, sp.body)
		}
		cp := v.get("/dashboard/test/settlements/" + st.ID + ".csv")
		if cp.status != 200 || !strings.HasPrefix(cp.header.Get("Content-Type"), "text/csv") {
			t.Fatalf("register CSV = %d %s", cp.status, cp.header.Get("Content-Type"))
		}
		rows, err := csv.NewReader(strings.NewReader(cp.body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range rows[1:] {
			if r[0] != st.ID {
				t.Fatalf("row of another register: %v", r)
			}
			if r[3] == "payment_captured" && r[5] == pay && r[6] == "pending" && r[7] == "1000.00" {
				found = true
			}
		}
		if rows[0][0] != "settlement_id" || !found {
			t.Fatalf("register CSV lacks the capture:\n%s", cp.body)
		}

		other := env.NewShop(payd.RegionRU, "")
		ov := newVisitor(t, env)
		ov.signIn(newUser(t, env, other.MerchantID, payd.RoleAdmin))
		for _, path := range []string{"/dashboard/test/settlements/" + st.ID, "/dashboard/test/settlements/" + st.ID + ".csv",
			"/dashboard/settlements/" + st.ID} {
			if p := ov.get(path); p.status != http.StatusNotFound {
				t.Errorf("another merchant's %s = %d, want 404", path, p.status)
			}
		}
	})
}
