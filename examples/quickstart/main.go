// Command quickstart is the README's walk with the Go client, whole: a
// sandbox payment created, paid, read back and partly refunded, and the
// shop's payments listed. Run it next to `make run`:
//
//	go run ./examples/quickstart
//
// It takes the API's address, the shop and its test key from the
// environment (PAYD_API_URL, PAYD_SHOP_ID, PAYD_SECRET_KEY) or, without
// them, from the ru shop of payd-data/dev.json, as the curl walk does.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/paydhq/payd/client"
)

func main() {
	api, shopID, secretKey, err := sandboxShop()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := walk(ctx, api, shopID, secretKey); err != nil {
		var apiErr *client.Error // every answer that is not 2xx
		if errors.As(err, &apiErr) {
			log.Fatalf("%s (%s, parameter %q)", apiErr.Description, apiErr.Code, apiErr.Parameter)
		}
		log.Fatal(err)
	}
}

func walk(ctx context.Context, api, shopID, secretKey string) error {
	c, err := client.New(api, shopID, secretKey)
	if err != nil {
		return err
	}
	// Each call gets its own Idempotency-Key; the same one goes with its
	// retries. An order id is one payment: this one is new on every run.
	p, err := c.CreatePayment(ctx, client.PaymentCreate{
		Amount:       client.Amt("1500.00", client.RUB),
		OrderID:      fmt.Sprintf("quickstart-%d", time.Now().UnixNano()),
		Description:  client.Ptr("Two books"),
		Confirmation: client.QR(),
	})
	if err != nil {
		return err
	}
	fmt.Println("created", p.ID, p.Status)

	// The sandbox bank pays it when told to. The answer comes first (202)
	// and the outcome a moment later: wait until the payment leaves
	// pending before the next step.
	if err := c.SimulatePayment(ctx, p.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeSucceed}); err != nil {
		return err
	}
	if p, err = c.WaitPayment(ctx, p.ID); err != nil {
		return err
	}
	fmt.Println("paid", p.ID, p.Status, p.CapturedAmount.Value, p.CapturedAmount.Currency)

	r, err := c.CreateRefund(ctx, client.RefundCreate{PaymentID: p.ID, Amount: client.Amt("500.00", client.RUB)})
	if err != nil {
		return err
	}
	fmt.Println("refund", r.ID, r.Status, r.Amount.Value)

	n := 0
	for _, err := range c.ListPayments(ctx, client.ListPaymentsParams{}) {
		if err != nil {
			return err
		}
		n++
	}
	fmt.Println("payments in the shop:", n)
	return nil
}

// sandboxShop is the API and the shop to use: the environment's, else the
// ru demo shop of a `make run` (payd serve --dev) in ./payd-data.
func sandboxShop() (api, shopID, secretKey string, err error) {
	api, shopID, secretKey = os.Getenv("PAYD_API_URL"), os.Getenv("PAYD_SHOP_ID"), os.Getenv("PAYD_SECRET_KEY")
	if shopID != "" && secretKey != "" {
		if api == "" {
			api = "http://127.0.0.1:8080/v1"
		}
		return api, shopID, secretKey, nil
	}
	raw, err := os.ReadFile("payd-data/dev.json")
	if err != nil {
		return "", "", "", fmt.Errorf("no PAYD_SHOP_ID and PAYD_SECRET_KEY, and no dev.json of a make run here: %w", err)
	}
	var dev struct {
		APIURL string `json:"api_url"`
		Shops  []struct {
			Region    string `json:"region"`
			ShopID    string `json:"shop_id"`
			SecretKey string `json:"secret_key"`
		} `json:"shops"`
	}
	if err := json.Unmarshal(raw, &dev); err != nil {
		return "", "", "", fmt.Errorf("payd-data/dev.json: %w", err)
	}
	for _, s := range dev.Shops {
		if s.Region == "ru" {
			return dev.APIURL, s.ShopID, s.SecretKey, nil
		}
	}
	return "", "", "", errors.New("payd-data/dev.json has no ru shop")
}
