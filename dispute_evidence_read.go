package payd

import (
	"context"
	"slices"
)

// AttachedEvidence returns an evidence file attached to a dispute of the
// principal's shop and mode, for a merchant to download what it sent: a
// file of another shop's dispute, of the other contour, or uploaded but
// never attached is NotFound, as the dispute itself would be.
func (s *Service) AttachedEvidence(ctx context.Context, p *Principal, disputeID, fileID string) (*EvidenceFile, error) {
	d, err := s.GetDispute(ctx, p, disputeID)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(d.Evidence, func(ev DisputeEvidence) bool { return ev.FileID == fileID }) {
		return nil, NotFound("evidence file")
	}
	return s.EvidenceFileOf(ctx, d.ID, fileID)
}
