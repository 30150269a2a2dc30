package main

import (
	"net/http"
	"net/url"
	"strconv"
)

// The money and reconciliation commands print the operator API's JSON
// (indented): their answers are nested objects that a table would flatten.

func (a *adminCLI) showJSON(method, path string, body any) error {
	data, err := a.call(method, path, body)
	if err != nil {
		return err
	}
	return printJSON(a.stdout, data)
}

func (a *adminCLI) ledgerCheck(args []string) error {
	if _, err := a.parse(a.flags("ledger check"), args); err != nil {
		return err
	}
	return a.showJSON(http.MethodGet, "/admin/v1/ledger/check", nil)
}

func (a *adminCLI) ledgerBalance(args []string) error {
	fs := a.flags("ledger balance")
	test := fs.Bool("test", false, "the sandbox contour")
	pos, err := a.parse(fs, args, "MERCHANT_ID")
	if err != nil {
		return err
	}
	q := ""
	if *test {
		q = "?test=true"
	}
	return a.showJSON(http.MethodGet, "/admin/v1/merchants/"+url.PathEscape(pos[0])+"/balance"+q, nil)
}

func (a *adminCLI) paymentsGet(args []string) error {
	pos, err := a.parse(a.flags("payments get"), args, "PAYMENT_ID")
	if err != nil {
		return err
	}
	return a.showJSON(http.MethodGet, "/admin/v1/payments/"+url.PathEscape(pos[0]), nil)
}

func (a *adminCLI) discrepanciesList(args []string) error {
	fs := a.flags("discrepancies list")
	limit := fs.Int("limit", 0, "page size")
	cursor := fs.String("cursor", "", "next_cursor of the previous page")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	return a.showJSON(http.MethodGet, "/admin/v1/discrepancies"+listQuery(*limit, *cursor), nil)
}

func (a *adminCLI) eventAttempts(args []string) error {
	pos, err := a.parse(a.flags("events attempts"), args, "EVENT_ID")
	if err != nil {
		return err
	}
	return a.showJSON(http.MethodGet, "/admin/v1/events/"+url.PathEscape(pos[0])+"/attempts", nil)
}

func (a *adminCLI) settlementsForm(args []string) error {
	fs := a.flags("settlements form")
	test := fs.Bool("test", false, "the sandbox contour")
	currency := fs.String("currency", "", "currency")
	date := fs.String("date", "", "day of the regional calendar, YYYY-MM-DD")
	pos, err := a.parse(fs, args, "MERCHANT_ID")
	if err != nil {
		return err
	}
	return a.showJSON(http.MethodPost, "/admin/v1/merchants/"+url.PathEscape(pos[0])+"/settlements",
		map[string]any{"test": *test, "currency": *currency, "date": *date})
}

// settlementsList is the queue of registers across merchants.
func (a *adminCLI) settlementsList(args []string) error {
	fs := a.flags("settlements list")
	status := fs.String("status", "", "draft, approved, sent, paid or failed (default: every state)")
	test := fs.Bool("test", false, "the sandbox contour")
	merchant := fs.String("merchant", "", "one merchant's registers")
	currency := fs.String("currency", "", "one currency's registers")
	limit := fs.Int("limit", 0, "page size")
	cursor := fs.String("cursor", "", "next_cursor of the previous page")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	return a.showJSON(http.MethodGet, "/admin/v1/settlements"+listQuery(*limit, *cursor, "status", *status,
		"test", strconv.FormatBool(*test), "merchant_id", *merchant, "currency", *currency), nil)
}

func settlementAction(action string) func(*adminCLI, []string) error {
	return func(a *adminCLI, args []string) error {
		pos, err := a.parse(a.flags("settlements "+action), args, "SETTLEMENT_ID")
		if err != nil {
			return err
		}
		return a.showJSON(http.MethodPost, "/admin/v1/settlements/"+url.PathEscape(pos[0])+"/"+action, nil)
	}
}

func freezeAction(action string) func(*adminCLI, []string) error {
	return func(a *adminCLI, args []string) error {
		fs := a.flags("payouts " + action)
		test := fs.Bool("test", false, "the sandbox contour")
		reason := fs.String("reason", "manual_review", "freeze reason")
		pos, err := a.parse(fs, args, "MERCHANT_ID")
		if err != nil {
			return err
		}
		return a.showJSON(http.MethodPost, "/admin/v1/merchants/"+url.PathEscape(pos[0])+"/"+action,
			map[string]any{"test": *test, "reason": *reason})
	}
}

func init() {
	adminCommands["ledger"] = map[string]func(*adminCLI, []string) error{
		"check": (*adminCLI).ledgerCheck, "balance": (*adminCLI).ledgerBalance}
	adminCommands["payments"] = map[string]func(*adminCLI, []string) error{"get": (*adminCLI).paymentsGet}
	adminCommands["discrepancies"] = map[string]func(*adminCLI, []string) error{"list": (*adminCLI).discrepanciesList}
	adminCommands["events"] = map[string]func(*adminCLI, []string) error{"attempts": (*adminCLI).eventAttempts}
	adminCommands["settlements"] = map[string]func(*adminCLI, []string) error{
		"list": (*adminCLI).settlementsList, "form": (*adminCLI).settlementsForm, "approve": settlementAction("approve"), "send": settlementAction("send"),
		"pay": settlementAction("pay"), "fail": settlementAction("fail")}
	adminCommands["payouts"] = map[string]func(*adminCLI, []string) error{
		"freeze": freezeAction("freeze"), "unfreeze": freezeAction("unfreeze")}
	adminSections = append(adminSections,
		struct{ name, text string }{"ledger", `Ledger:
  ledger check                          money invariants: {"ok", "problems"}
  ledger balance MERCHANT_ID [--test]   every bucket per currency (trial balance), as
                                        {"value": "5968.24", "currency": "RUB"}
`},
		struct{ name, text string }{"payments", `Payments:
  payments get PAYMENT_ID               any shop's payment, with its provider attempts
`},
		struct{ name, text string }{"discrepancies", `Discrepancies:
  discrepancies list [--limit N] [--cursor C]   provider reports that could not be applied
`},
		struct{ name, text string }{"events", `Events:
  events attempts EVENT_ID              the delivery attempt log of an event
`},
		struct{ name, text string }{"settlements", `Settlements:
  settlements list [--status draft|approved|sent|paid|failed] [--test] [--merchant MERCHANT_ID]
      [--currency RUB] [--limit N] [--cursor C]   every merchant's registers, newest first
  settlements form MERCHANT_ID --currency RUB --date YYYY-MM-DD [--test]
  settlements approve|send|pay|fail SETTLEMENT_ID
`},
		struct{ name, text string }{"payouts", `Payout freezes:
  payouts freeze MERCHANT_ID [--test] [--reason manual_review|verification|...]
  payouts unfreeze MERCHANT_ID [--test]
`})
}
