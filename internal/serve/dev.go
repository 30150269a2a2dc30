package serve

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/money"
)

// DevInfo is `<data-dir>/dev.json`: what a developer needs to call the
// service started with --dev.
type DevInfo struct {
	APIURL     string    `json:"api_url"`
	AdminURL   string    `json:"admin_url"`
	AdminToken string    `json:"admin_token"`
	Shops      []DevShop `json:"shops"`
	// Dashboard is the demo merchant's admin user of the dashboard.
	Dashboard *DevDashboard `json:"dashboard,omitempty"`
	// BackOffice is the demo staff admin of the operator's back office.
	BackOffice *DevBackOffice `json:"back_office,omitempty"`
}

// DevBackOffice is where the back office is and how its demo staff admin
// signs in. TOTPSecret is the second factor's secret, which a sandbox
// hands out so that a developer (or a browser test) can make the codes;
// no other instance ever shows one again.
type DevBackOffice struct {
	URL        string `json:"url"`
	Email      string `json:"email"`
	Password   string `json:"password"`
	TOTPSecret string `json:"totp_secret,omitempty"`
}

// DevBackOfficeEmail is the demo staff admin's sign-in.
const DevBackOfficeEmail = "admin@operator.payd.test"

// DevBackOfficePath is where the back office is served on the operator
// listener.
const DevBackOfficePath = "/office/"

// DevDashboard is where the dashboard is and how its demo admin signs in.
type DevDashboard struct {
	URL      string `json:"url"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

// DevDashboardEmail is the demo admin's sign-in.
const DevDashboardEmail = "admin@demo.payd.test"

// DevShop is one demo shop and its test key.
type DevShop struct {
	Region    payd.Region `json:"region"`
	ShopID    string      `json:"shop_id"`
	SecretKey string      `json:"secret_key"`
}

// DevAdminToken returns the operator token kept in dev.json, or a new one.
func DevAdminToken(dataDir string) string {
	if info, err := ReadDev(dataDir); err == nil && info.AdminToken != "" {
		return info.AdminToken
	}
	b := make([]byte, 24)
	rand.Read(b)
	return "adm_" + base64.RawURLEncoding.EncodeToString(b)
}

// ReadDev reads `<dataDir>/dev.json`, written by a start with --dev.
func ReadDev(dataDir string) (*DevInfo, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "dev.json"))
	if err != nil {
		return nil, err
	}
	var info DevInfo
	return &info, json.Unmarshal(b, &info)
}

// EnsureDev creates the demo merchant with a shop per region and a test key
// each on an empty database and writes dev.json; on a later start it
// reuses dev.json (secrets are stored hashed, so the file is their only
// copy).
//
// The demo merchant also gets a dashboard admin, DevDashboardEmail, whose
// random password is made on the first start and kept in dev.json, so a
// restart signs in with the same one.
func EnsureDev(ctx context.Context, svc *payd.Service, acc *account.Service, dataDir, apiURL, adminURL, adminToken, dashboardURL string) (*DevInfo, error) {
	info, err := ReadDev(dataDir)
	if err == nil && len(info.Shops) > 0 {
		if shop, err := svc.GetShop(ctx, info.Shops[0].ShopID); err == nil {
			info.APIURL, info.AdminURL, info.AdminToken = apiURL, adminURL, adminToken
			if info.Dashboard, err = ensureDevDashboard(ctx, acc, shop.MerchantID, dashboardURL, info.Dashboard); err != nil {
				return nil, err
			}
			if info.BackOffice, err = ensureDevBackOffice(ctx, acc, adminURL+DevBackOfficePath, info.BackOffice); err != nil {
				return nil, err
			}
			return info, writeDev(dataDir, info)
		}
	}
	var count int
	if err := svc.Store().View(ctx, func(tx payd.Tx) (err error) {
		count, err = tx.ShopCount(ctx)
		return err
	}); err != nil {
		return nil, err
	}
	if count > 0 {
		return nil, errors.New("--dev: the database has shops but dev.json is missing or stale; issue a key with `payd admin keys issue` or start with an empty --data-dir")
	}
	m, err := svc.CreateMerchant(ctx, payd.MerchantCreate{Name: "Demo Merchant", LegalName: "Demo Merchant LLC"})
	if err != nil {
		return nil, err
	}
	info = &DevInfo{APIURL: apiURL, AdminURL: adminURL, AdminToken: adminToken}
	for _, s := range []struct {
		region payd.Region
		cur    money.Currency
	}{{payd.RegionRU, money.RUB}, {payd.RegionKZ, money.KZT}} {
		shop, err := svc.CreateShop(ctx, payd.ShopCreate{
			MerchantID: m.ID, Region: s.region, Name: fmt.Sprintf("Demo Shop %s", s.region), DefaultCurrency: s.cur,
			Settings: &payd.ShopSettings{DisplayName: "Demo Shop", StatementName: "DEMO SHOP"},
		})
		if err != nil {
			return nil, err
		}
		_, secret, err := svc.IssueKey(ctx, shop.ID, payd.ModeTest)
		if err != nil {
			return nil, err
		}
		info.Shops = append(info.Shops, DevShop{Region: s.region, ShopID: shop.ID, SecretKey: secret})
	}
	if info.Dashboard, err = ensureDevDashboard(ctx, acc, m.ID, dashboardURL, nil); err != nil {
		return nil, err
	}
	if info.BackOffice, err = ensureDevBackOffice(ctx, acc, adminURL+DevBackOfficePath, nil); err != nil {
		return nil, err
	}
	return info, writeDev(dataDir, info)
}

// ensureDevDashboard makes sure the demo merchant has its dashboard admin
// with the password prev names; without prev (a first start, or a dev.json
// of a build before the dashboard) it creates the user, or gives the one
// there a new password, and returns the sign-in to keep.
func ensureDevDashboard(ctx context.Context, acc *account.Service, merchantID, url string, prev *DevDashboard) (*DevDashboard, error) {
	users, err := acc.ListUsers(ctx, merchantID)
	if err != nil {
		return nil, err
	}
	var user *payd.User
	for _, u := range users {
		if u.Email == DevDashboardEmail {
			user = u
		}
	}
	if user != nil && user.HasPassword && prev != nil && prev.Email == DevDashboardEmail && prev.Password != "" {
		prev.URL = url
		return prev, nil
	}
	var token string
	if user == nil {
		_, token, err = acc.CreateUser(ctx, nil, merchantID, DevDashboardEmail, payd.RoleAdmin)
	} else {
		token, err = acc.NewSetupToken(ctx, nil, merchantID, user.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("--dev: dashboard user: %w", err)
	}
	password := devPassword()
	if _, err := acc.SetPassword(ctx, token, password, "--dev"); err != nil {
		return nil, fmt.Errorf("--dev: dashboard password: %w", err)
	}
	return &DevDashboard{URL: url, Email: DevDashboardEmail, Password: password}, nil
}

// ensureDevBackOffice makes sure the demo staff admin signs in with what
// prev names; without prev (a first start, or a dev.json of a build
// before the back office) it gives the admin, new or there, a new password
// and second factor.
func ensureDevBackOffice(ctx context.Context, acc *account.Service, url string, prev *DevBackOffice) (*DevBackOffice, error) {
	if prev != nil && prev.Email == DevBackOfficeEmail && prev.Password != "" && prev.TOTPSecret != "" {
		list, err := acc.ListStaff(ctx)
		if err != nil {
			return nil, err
		}
		for _, st := range list {
			if st.Email == DevBackOfficeEmail && st.HasPassword && st.TOTPEnabled && st.DisabledAt == nil {
				prev.URL = url
				return prev, nil
			}
		}
	}
	password := devPassword()
	_, secret, err := acc.SeedStaff(ctx, DevBackOfficeEmail, payd.StaffAdmin, password)
	if err != nil {
		return nil, fmt.Errorf("--dev: staff admin: %w", err)
	}
	return &DevBackOffice{URL: url, Email: DevBackOfficeEmail, Password: password, TOTPSecret: secret}, nil
}

// devPassword is a random password of 24 characters.
func devPassword() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// writeDev writes dev.json, making the data directory first: on
// PostgreSQL nothing else has made it.
func writeDev(dataDir string, info *DevInfo) error {
	b, _ := json.MarshalIndent(info, "", "  ")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dataDir, "dev.json"), append(b, '\n'), 0o600)
}
