package dashboard

import (
	"net/url"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
	"github.com/paydhq/payd/money"
)

// settlementRows writes the rows of the balance page's registers (rows.go
// says why in Go): each register's link, period, state, sums and CSV
// report, its cells labelled with their columns for the phone's layout.
func settlementRows(l webpage.Locale, sts []*payd.SettlementJSON, base string) (rowsHTML, error) {
	word := pageWords(l)
	col := [...]string{l.T("Settlement"), l.T("Period"), l.T("State"), l.T("Turnover"), l.T("Fee"), l.T("Refunds"), l.T("Net"), l.T("Register")}
	var w rowWriter
	w.Grow(len(sts) * 900)
	for _, st := range sts {
		state, err := word(st.Status)
		if err != nil {
			return nil, err
		}
		href := base + "settlements/" + url.PathEscape(st.ID)
		w.WriteString("<tr>")
		w.cell("", col[0])
		w.monoLink(href, st.ID)
		w.WriteString("</td>")
		w.cell("", col[1])
		w.text(st.PeriodFrom)
		w.WriteString(" – ")
		w.text(st.PeriodTo)
		w.WriteString("</td>")
		w.cell("", col[2])
		w.WriteString(`<span class="badge">`)
		w.text(state)
		w.WriteString("</span></td>")
		for i, a := range [...]money.Amount{st.GrossAmount, st.FeeAmount, st.RefundsAmount} {
			w.cell("num", col[3+i])
			w.text(l.Amount(a.Minor, string(a.Currency)))
			w.WriteString("</td>")
		}
		w.cell("num", col[6])
		w.text(l.Amount(st.NetAmount.Minor, string(st.Currency)))
		w.WriteString("</td>")
		w.cell("", col[7])
		w.WriteString(`<a href="`)
		w.text(href + ".csv")
		w.WriteString(`">CSV</a></td></tr>`)
	}
	return w.html(), nil
}
