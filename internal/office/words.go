package office

import (
	"fmt"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// words are the English words of the values the pages show from the API
// (roles, register states, their moves); the catalogue has them in each
// language of the back office. A value without words is shown as it is.
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
