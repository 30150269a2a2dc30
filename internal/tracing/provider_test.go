package tracing

import "testing"

// TestEnabled: traces are off unless the standard variables ask for them.
func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_SERVICE_NAME": "payd-eu"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "console"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false},
	} {
		if got := Enabled(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("Enabled(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestStartFromEnvironment: the exporter is the one OTEL_TRACES_EXPORTER
// names; a name OpenTelemetry does not know is refused at start, not
// discovered when the first batch is lost.
func TestStartFromEnvironment(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "console")
	t.Setenv("OTEL_SERVICE_NAME", "payd-test")
	tp, err := Start(t.Context(), "v0.0.0-test")
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "carrier-pigeon")
	if _, err := Start(t.Context(), ""); err == nil {
		t.Fatal("an unknown exporter was accepted")
	}
}
