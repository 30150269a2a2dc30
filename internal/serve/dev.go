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
	"github.com/paydhq/payd/money"
)

// DevInfo is `<data-dir>/dev.json`: what a developer needs to call the
// service started with --dev.
type DevInfo struct {
	APIURL     string    `json:"api_url"`
	AdminURL   string    `json:"admin_url"`
	AdminToken string    `json:"admin_token"`
	Shops      []DevShop `json:"shops"`
}

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
func EnsureDev(ctx context.Context, svc *payd.Service, dataDir, apiURL, adminURL, adminToken string) (*DevInfo, error) {
	info, err := ReadDev(dataDir)
	if err == nil && len(info.Shops) > 0 {
		if _, err := svc.GetShop(ctx, info.Shops[0].ShopID); err == nil {
			info.APIURL, info.AdminURL, info.AdminToken = apiURL, adminURL, adminToken
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
	return info, writeDev(dataDir, info)
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
