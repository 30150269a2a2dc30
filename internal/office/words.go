package office

import (
	"fmt"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// words are the English words of the values the pages show from the API
// (roles; the states of registers, disputes and payments; their moves;
// dispute kinds); the catalogue has them in each language of the back
// office. A value without words is shown as it is.
var words = map[string]string{
	string(payd.StaffAdmin): "Administrator", string(payd.StaffFinance): "Finance",
	string(payd.StaffRisk): "Risk", string(payd.StaffSupport): "Support",
	string(payd.SettlementDraft): "Draft", string(payd.SettlementApproved): "Approved",
	string(payd.SettlementSent): "Sent", string(payd.SettlementPaid): "Paid", string(payd.SettlementFailed): "Not paid",
	"approve": "Approve", "send": "Mark sent", "pay": "Mark paid", "fail": "Mark not paid",
	string(payd.ShopActivate): "Activate", string(payd.ShopBlock): "Block", string(payd.ShopUnblock): "Unblock",
	string(payd.ShopSuspend): "Suspend payments", string(payd.ShopResume): "Resume payments",
	string(payd.FreezeNegativeBalance): "Negative balance", string(payd.FreezeChargebackRatio): "Chargeback ratio",
	string(payd.FreezeRefundRatio): "Refund ratio", string(payd.FreezeVolumeSpike): "Volume spike",
	string(payd.FreezeManualReview): "Manual review", string(payd.FreezeVerification): "Verification",
	string(payd.RoleDeveloper): "Developer", string(payd.RoleViewer): "Viewer",
	string(payd.ModeTest): "Test", string(payd.ModeLive): "Live",
	string(payd.DisputeOpened): "Opened", string(payd.DisputeEvidenceRequired): "Evidence required",
	string(payd.DisputeSubmitted): "Submitted", string(payd.DisputeWon): "Won", string(payd.DisputeLost): "Lost",
	string(payd.DisputeExpired): "Expired", string(payd.DisputeChargeback): "Chargeback",
	string(payd.DisputeRetrieval): "Retrieval request", string(payd.DisputeComplaint): "Complaint",
	"request_evidence": "Ask the merchant for evidence", "submit": "Evidence sent to the bank",
	"win": "Mark won", "lose": "Mark lost", "expire": "Close as expired",
	string(payd.PaymentPending): "Pending", string(payd.PaymentWaitingForCapture): "Waiting for capture",
	string(payd.PaymentSucceeded): "Succeeded", string(payd.PaymentCanceled): "Canceled",
}

// word says v in the page's language: its words, or what a four-eyes
// action is (payd.FourEyesActions), or v itself.
func word(l webpage.Locale, v any) string {
	s := fmt.Sprint(v)
	if w, ok := words[s]; ok {
		return l.T(w)
	}
	if what, ok := payd.FourEyesActions()[s]; ok {
		return l.T(what)
	}
	return s
}
