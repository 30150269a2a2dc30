package main

import (
	"net/http"
	"net/url"
	"os"
	"strconv"
)

// The dispute commands print the operator API's JSON, as the money
// commands do; evidence writes the file's bytes.

func (a *adminCLI) disputesOpen(args []string) error {
	fs := a.flags("disputes open")
	kind := fs.String("kind", "", "chargeback (default), retrieval or complaint")
	amount := fs.String("amount", "", "disputed sum such as 1500.00 (default: the payment's refundable amount)")
	currency := fs.String("currency", "", "currency of --amount, --bank-fine and --service-fee")
	reason := fs.String("reason-code", "", "the bank's reason code (at most 32 characters)")
	deadline := fs.String("deadline", "", "evidence deadline, RFC 3339 (default: 7 days from now)")
	fine := fs.String("bank-fine", "", "bank fine charged if lost (default: the shop's dispute_fees)")
	fee := fs.String("service-fee", "", "service fee charged if lost (default: the shop's dispute_fees)")
	bankID := fs.String("provider-dispute-id", "", "the bank's id of the dispute")
	pos, err := a.parse(fs, args, "PAYMENT_ID")
	if err != nil {
		return err
	}
	body := map[string]any{}
	for name, v := range map[string]string{"amount": *amount, "bank_fine_amount": *fine, "service_fee_amount": *fee} {
		if v == "" {
			continue
		}
		if *currency == "" {
			return usagef("--currency is needed with --amount, --bank-fine and --service-fee")
		}
		body[name] = map[string]string{"value": v, "currency": *currency}
	}
	for name, v := range map[string]string{"kind": *kind, "reason_code": *reason, "evidence_deadline_at": *deadline,
		"provider_dispute_id": *bankID} {
		if v != "" {
			body[name] = v
		}
	}
	return a.showJSON(http.MethodPost, "/admin/v1/payments/"+url.PathEscape(pos[0])+"/disputes", body)
}

// disputesList is the queue of disputes across merchants by deadline.
func (a *adminCLI) disputesList(args []string) error {
	fs := a.flags("disputes list")
	status := fs.String("status", "", "one status (default: opened and evidence_required, those awaiting an answer)")
	test := fs.Bool("test", false, "the sandbox contour")
	merchant := fs.String("merchant", "", "one merchant's disputes")
	limit := fs.Int("limit", 0, "page size")
	cursor := fs.String("cursor", "", "next_cursor of the previous page")
	if _, err := a.parse(fs, args); err != nil {
		return err
	}
	return a.showJSON(http.MethodGet, "/admin/v1/disputes"+listQuery(*limit, *cursor, "status", *status,
		"test", strconv.FormatBool(*test), "merchant_id", *merchant), nil)
}

func (a *adminCLI) disputesGet(args []string) error {
	pos, err := a.parse(a.flags("disputes get"), args, "DISPUTE_ID")
	if err != nil {
		return err
	}
	return a.showJSON(http.MethodGet, "/admin/v1/disputes/"+url.PathEscape(pos[0]), nil)
}

// disputeAction is one of the operator's steps; the command word is the
// route's action with a hyphen (request-evidence).
func disputeAction(action string) func(*adminCLI, []string) error {
	return func(a *adminCLI, args []string) error {
		fs := a.flags("disputes " + action)
		resolution := fs.String("resolution", "", "what the bank said, for the dispute's record (at most 512 characters)")
		pos, err := a.parse(fs, args, "DISPUTE_ID")
		if err != nil {
			return err
		}
		return a.showJSON(http.MethodPost, "/admin/v1/disputes/"+url.PathEscape(pos[0])+"/"+action,
			map[string]any{"resolution": *resolution})
	}
}

func (a *adminCLI) disputesEvidence(args []string) error {
	fs := a.flags("disputes evidence")
	out := fs.String("out", "", "file to write (default: standard output)")
	pos, err := a.parse(fs, args, "DISPUTE_ID", "FILE_ID")
	if err != nil {
		return err
	}
	data, err := a.call(http.MethodGet, "/admin/v1/disputes/"+url.PathEscape(pos[0])+"/evidence/"+url.PathEscape(pos[1]), nil)
	if err != nil {
		return err
	}
	if *out == "" || *out == "-" {
		_, err = a.stdout.Write(data)
		return err
	}
	return os.WriteFile(*out, data, 0o600)
}

func init() {
	adminCommands["disputes"] = map[string]func(*adminCLI, []string) error{
		"list": (*adminCLI).disputesList, "open": (*adminCLI).disputesOpen, "get": (*adminCLI).disputesGet, "evidence": (*adminCLI).disputesEvidence,
		"request-evidence": disputeAction("request_evidence"), "submit": disputeAction("submit"),
		"win": disputeAction("win"), "lose": disputeAction("lose"), "expire": disputeAction("expire"),
	}
	adminSections = append(adminSections, struct{ name, text string }{"disputes", `Disputes (stage M2: serve --stage M2):
  disputes open PAYMENT_ID [--kind chargeback|retrieval|complaint] [--amount 1500.00 --currency RUB]
      [--reason-code C] [--deadline 2026-12-01T00:00:00Z] [--bank-fine 500.00] [--service-fee 100.00]
      [--provider-dispute-id ID]
  disputes list [--status S] [--test] [--merchant MERCHANT_ID] [--limit N] [--cursor C]
      every merchant's disputes, soonest evidence deadline first
  disputes get DISPUTE_ID
  disputes request-evidence|submit|win|lose|expire DISPUTE_ID [--resolution TEXT]
  disputes evidence DISPUTE_ID FILE_ID [--out FILE]

  open records a dispute the bank reported outside its notifications and holds
  its sum; submit sends the attached evidence to the bank; win, lose and expire
  close it (lose and expire charge it back with the fine and the fee).
`})
}
