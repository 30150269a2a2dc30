package dashboard

import (
	"errors"
	"fmt"
	"time"

	"github.com/tidwall/gjson"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// listedPayment is what a list row shows of a payment's rendering.
type listedPayment struct {
	ID, OrderID, Description string
	Status                   payd.PaymentStatus
	CreatedAt                time.Time
	Minor                    int64
	Currency                 money.Currency
	// Method is the payment method's type, "" while the payer has not
	// chosen one.
	Method payd.MethodType
	// Email, FullName and Phone are the customer's, where given.
	Email, FullName, Phone string
}

// listed reads a row of the payments list from a payment's rendering in
// one pass over its members, taking the few a row shows and stepping over
// the rest (seven other amounts, the details, the metadata) without
// decoding them. Decoded into a struct, even by a decoder that skips what
// the struct lacks, a page's 50 renderings were a seventh of the page's
// CPU, most of it the decoder's checks and bookkeeping of members it then
// dropped; this reads them in under half the time
// (BenchmarkListed; docs/benchmarks-history.md, "The dashboard's rows
// read member by member"). The renderings are the service's own, written
// by encoding/json when the payment changed, so the reader trusts their
// form; what a row cannot do without (its id, its moment, its amount) is
// still checked.
func listed(v *payd.PaymentView) (*listedPayment, error) {
	var p listedPayment
	var err error
	gjson.Parse(v.JSON).ForEach(func(name, val gjson.Result) bool {
		switch name.Str {
		case "id":
			p.ID = val.Str
		case "status":
			p.Status = payd.PaymentStatus(val.Str)
		case "order_id":
			p.OrderID = val.Str
		case "description":
			p.Description = val.Str
		case "created_at":
			p.CreatedAt, err = time.Parse(time.RFC3339Nano, val.Str)
		case "amount":
			p.Minor, err = money.ParseValue(val.Get("value").Str)
			p.Currency = money.Currency(val.Get("currency").Str)
		case "payment_method":
			p.Method = payd.MethodType(val.Get("type").Str)
		case "customer":
			p.Email, p.FullName, p.Phone = val.Get("email").Str, val.Get("full_name").Str, val.Get("phone").Str
		}
		return err == nil
	})
	if err == nil && (p.ID == "" || p.Currency == "") {
		err = errors.New("no id or no amount")
	}
	if err != nil {
		return nil, fmt.Errorf("read the rendering of payment %s: %w", v.ID, err)
	}
	return &p, nil
}
