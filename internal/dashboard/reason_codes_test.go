package dashboard

import (
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// The reason codes' meanings, the dispute's steps and its badge come from
// tables, not literal calls of T: each must be in the catalogue, or a
// Russian page would show it in English.
func TestDisputeTextsAreInTheCatalogue(t *testing.T) {
	texts := []string{reasonUnknown, disputeBadge(&payd.Dispute{Status: payd.DisputeOpened, Evidence: []payd.DisputeEvidence{{}}})}
	for _, rc := range reasonCodes {
		texts = append(texts, rc.Meaning)
	}
	for _, st := range disputeSteps(&payd.Dispute{Status: payd.DisputeOpened}, time.Now()) {
		texts = append(texts, st.Title, st.Text)
	}
	for _, text := range texts {
		if !webpage.HasMessage(text) {
			t.Errorf("%q is not in the catalogue", text)
		}
	}
}
