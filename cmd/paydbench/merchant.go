package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// madeMerchant is a merchant the benchmark made, with its shop and the
// shop's test key.
type madeMerchant struct{ merchantID, shopID, secret string }

// makeMerchant makes merchant i through the operator API, with a shop in
// ru, a test key and the benchmark's rate limits.
func makeMerchant(ctx context.Context, client *http.Client, adminURL, token string, i int) (madeMerchant, error) {
	var m madeMerchant
	var merchant, shop struct{ ID string }
	var key struct{ Secret string }
	if err := adminCall(ctx, client, adminURL, token, http.MethodPost, "/admin/v1/merchants",
		map[string]any{"name": fmt.Sprintf("Bench Merchant %d", i)}, &merchant); err != nil {
		return m, err
	}
	if err := adminCall(ctx, client, adminURL, token, http.MethodPost, "/admin/v1/shops",
		map[string]any{"merchant_id": merchant.ID, "region": "ru", "name": fmt.Sprintf("Bench shop %d", i)}, &shop); err != nil {
		return m, err
	}
	if err := adminCall(ctx, client, adminURL, token, http.MethodPost, "/admin/v1/shops/"+shop.ID+"/keys",
		map[string]any{"mode": "test"}, &key); err != nil {
		return m, err
	}
	limits := map[string]int{"requests_per_minute": rateLimitPerMinute, "payments_per_minute": rateLimitPerMinute}
	if err := adminCall(ctx, client, adminURL, token, http.MethodPatch, "/admin/v1/shops/"+shop.ID, limits, nil); err != nil {
		return m, err
	}
	if merchant.ID == "" || shop.ID == "" || key.Secret == "" {
		return m, fmt.Errorf("merchant %d: the operator API answered without an id or a secret", i)
	}
	return madeMerchant{merchantID: merchant.ID, shopID: shop.ID, secret: key.Secret}, nil
}

// adminCall calls the operator API and decodes a 2xx answer into out.
func adminCall(ctx context.Context, client *http.Client, adminURL, token, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, method, adminURL+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}
