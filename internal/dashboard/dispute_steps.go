package dashboard

import (
	"time"

	"github.com/paydhq/payd"
)

// Attaching evidence changes no status (Disputes, rule 4): payd's
// operators send what is attached to the bank, and only then is the
// dispute submitted. A page that showed the status alone would say
// "Evidence required" over the files the merchant just attached, so the
// page says where the dispute is for the merchant: its steps, who takes
// each and when, and which is under way.

// stepState is where one step of a dispute is.
type stepState string

const (
	stepDone    stepState = "done"
	stepCurrent stepState = "current"
	stepNext    stepState = "next"
	stepMissed  stepState = "missed"
)

// disputeStep is one step the page lists: its title and what it means,
// catalogue keys, and when it happened or must happen.
type disputeStep struct {
	State       stepState
	Title, Text string
	// Args fill Text's verbs.
	Args []any
	When *time.Time
}

// attachedNotSent reports whether the merchant's evidence waits for
// payd's operators: attached, the dispute neither submitted nor decided.
func attachedNotSent(d *payd.Dispute) bool {
	return len(d.Evidence) > 0 && (d.Status == payd.DisputeOpened || d.Status == payd.DisputeEvidenceRequired)
}

// disputeBadge is the catalogue key of the state the page names: the
// status's label, but evidence attached and not yet sent says so.
func disputeBadge(d *payd.Dispute) string {
	if attachedNotSent(d) {
		return "Evidence attached, not sent yet"
	}
	return ""
}

// disputeSteps are the four steps of a dispute as they stand at now.
func disputeSteps(d *payd.Dispute, now time.Time) []disputeStep {
	passed := !now.Before(d.EvidenceDeadlineAt)
	sent := d.SubmittedAt != nil
	open := d.Status == payd.DisputeOpened || d.Status == payd.DisputeEvidenceRequired
	deadline := d.EvidenceDeadlineAt
	created := d.CreatedAt

	answer := disputeStep{State: stepNext, Title: "You attach evidence",
		Text: "Users with the admin or support role attach files here (PDF, JPEG or PNG, up to 10 files) with a comment for the bank, until the evidence deadline. Attaching sends nothing yet.",
		When: &deadline}
	send := disputeStep{State: stepNext, Title: "payd sends the evidence to the bank",
		Text: "payd's operators send the attached files and your comment to the bank; the status then becomes Submitted and the deadline no longer runs. Evidence not sent by the deadline is not considered: the dispute expires and costs what a lost one does."}
	decide := disputeStep{State: stepNext, Title: "The bank decides",
		Text: "Won: the held sum returns to your balance. Lost or expired: it goes to the payer's bank, with the bank fine and the service fee. The dispute.closed event tells your server."}
	switch {
	case d.Status.Final():
		answer.State, send.State, decide.State, decide.When = stepDone, stepDone, stepDone, d.ClosedAt
		if !sent {
			answer.State, send.State = stepMissed, stepMissed
			if len(d.Evidence) > 0 {
				answer.State = stepDone
			}
		} else {
			send.When = d.SubmittedAt
		}
	case sent:
		answer.State, send.State, send.When, decide.State = stepDone, stepDone, d.SubmittedAt, stepCurrent
	case open && passed:
		answer.State, send.State = stepMissed, stepMissed
		if len(d.Evidence) > 0 {
			answer.State = stepDone
		}
	case len(d.Evidence) > 0:
		// More files may still be attached until the deadline.
		answer.State, send.State = stepDone, stepCurrent
	default:
		answer.State = stepCurrent
	}
	return []disputeStep{
		{State: stepDone, Title: "The payer's bank opened the dispute", When: &created,
			Text: "The disputed sum is held from your balance until the bank decides; refunds cannot reach it."},
		answer, send, decide,
	}
}
