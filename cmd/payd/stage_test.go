package main

import (
	"io"
	"strings"
	"testing"

	"github.com/paydhq/payd"
)

func TestServeStage(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    payd.Stage
		wantErr string
	}{
		{"Default", nil, nil, payd.StageM1, ""},
		{"Flag", []string{"--stage", "M2"}, nil, payd.StageM2, ""},
		{"FlagLowerCase", []string{"--stage=m2"}, nil, payd.StageM2, ""},
		{"Environment", nil, map[string]string{"PAYD_STAGE": "M2"}, payd.StageM2, ""},
		{"FlagOverEnvironment", []string{"--stage", "v1"}, map[string]string{"PAYD_STAGE": "M2"}, payd.StageM1, ""},
		{"ErrUnknown", []string{"--stage", "M3"}, nil, 0, "unknown stage"},
		{"FlagM5", []string{"--stage", "M5"}, nil, payd.StageM5, ""},
		{"EnvironmentM5", nil, map[string]string{"PAYD_STAGE": "m5"}, payd.StageM5, ""},
		{"ErrUnknownAfterTop", []string{"--stage", "M6"}, nil, 0, "unknown stage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := parseServe(tt.args, env(tt.env), io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.stage != tt.want {
				t.Errorf("stage %s, want %s", o.stage, tt.want)
			}
		})
	}
}
