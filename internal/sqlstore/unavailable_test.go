package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paydhq/payd"
)

// TestTranslateUnavailable: failures to reach the database become 503
// provider_unavailable with Retry-After; everything else keeps its meaning.
func TestTranslateUnavailable(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"AdminShutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"StartingUp", fmt.Errorf("begin: %w", &pgconn.PgError{Code: "57P03"}), true},
		{"ConnectionFailure", &pgconn.PgError{Code: "08006"}, true},
		{"TooManyConnections", &pgconn.PgError{Code: "53300"}, true},
		{"Refused", fmt.Errorf("commit: %w", refused), true},
		{"Reset", fmt.Errorf("query: %w", syscall.ECONNRESET), true},
		{"BadConn", driver.ErrBadConn, true},
		{"UnexpectedEOF", io.ErrUnexpectedEOF, true},
		{"ConnClosed", errors.New("conn closed"), true},
		{"ReadOnly", fmt.Errorf("commit: %w", &pgconn.PgError{Code: "25006"}), true},
		{"CitusWorkerLost", &pgconn.PgError{Code: "XX000", Message: "failure on connection marked as essential: 127.0.0.1:40123"}, true},
		{"CitusCommitLost", &pgconn.PgError{Code: "XX000", Message: "could not commit transaction for shard 102008 on at least one active node"}, true},
		{"InternalOther", &pgconn.PgError{Code: "XX000", Message: "cache lookup failed for relation 16384"}, false},
		{"UniqueViolation", &pgconn.PgError{Code: "23505"}, false},
		{"SerializationFailure", &pgconn.PgError{Code: "40001"}, false},
		{"ContractError", fmt.Errorf("capture: %w", payd.NotFound("payment")), false},
		{"NoRows", payd.ErrNoRows, false},
		{"Canceled", fmt.Errorf("query: %w", context.Canceled), false},
		{"Other", errors.New("something else"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := translate(tt.err)
			var pe *payd.Error
			isUnavailable := errors.As(got, &pe) && pe.Code == payd.CodeProviderUnavailable
			if isUnavailable != tt.unavailable {
				t.Fatalf("translate(%v) = %v; want unavailable %v", tt.err, got, tt.unavailable)
			}
			if isUnavailable && pe.RetryAfter != UnavailableRetryAfter {
				t.Fatalf("RetryAfter = %v", pe.RetryAfter)
			}
			if !tt.unavailable && got != tt.err {
				t.Fatalf("translate changed %v into %v", tt.err, got)
			}
		})
	}
	if translate(nil) != nil {
		t.Fatal("translate(nil) != nil")
	}
}
