package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

const routeCols = `region, method, currency, providers, updated_at`

func scanRoute(row interface{ Scan(...any) error }) (*payd.ProviderRoute, error) {
	var r payd.ProviderRoute
	var providers string
	var updated int64
	if err := row.Scan(&r.Region, &r.Method, &r.Currency, &providers, &updated); err != nil {
		return nil, noRows(err)
	}
	if err := json.Unmarshal([]byte(providers), &r.Providers); err != nil {
		return nil, fmt.Errorf("provider route %s/%s/%s: %w", r.Region, r.Method, r.Currency, err)
	}
	r.UpdatedAt = fromMicros(updated)
	return &r, nil
}

func (t *tx) ProviderRouteGet(ctx context.Context, region payd.Region, method string, currency money.Currency) (*payd.ProviderRoute, error) {
	return scanRoute(t.q.QueryRowContext(ctx, `SELECT `+routeCols+` FROM provider_routes
		WHERE region = $1 AND method = $2 AND currency = $3`, region, method, currency))
}

func (t *tx) ProviderRoutePut(ctx context.Context, r *payd.ProviderRoute) error {
	providers, err := json.Marshal(r.Providers)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO provider_routes (`+routeCols+`) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (region, method, currency) DO UPDATE SET providers = excluded.providers, updated_at = excluded.updated_at`,
		r.Region, r.Method, r.Currency, string(providers), micros(r.UpdatedAt))
	return err
}

func (t *tx) ProviderRouteDelete(ctx context.Context, region payd.Region, method string, currency money.Currency) error {
	return t.execOne(ctx, `DELETE FROM provider_routes WHERE region = $1 AND method = $2 AND currency = $3`, region, method, currency)
}

// ProviderRouteList orders by plain text columns: their values are
// lower-case words and currency codes of a closed list, on which the
// databases' collations agree.
func (t *tx) ProviderRouteList(ctx context.Context) ([]*payd.ProviderRoute, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT `+routeCols+` FROM provider_routes ORDER BY region, method, currency`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*payd.ProviderRoute{}
	for rows.Next() {
		r, err := scanRoute(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
