package main

import (
	"fmt"
	"log/slog"
	"net"
)

// notifier tells the service manager of the process's state through the
// datagram socket systemd names in NOTIFY_SOCKET (sd_notify(3); a unit of
// Type=notify waits for READY=1). Without the variable it says nothing.
//
// It is the protocol written out rather than go-systemd's daemon package:
// the protocol is one datagram a state, and the package reads
// NOTIFY_SOCKET from the process's environment itself, where run takes
// its environment as a function (tests give each payd their own).
type notifier struct {
	socket string
	log    *slog.Logger
}

func newNotifier(getenv func(string) string, log *slog.Logger) *notifier {
	return &notifier{socket: getenv("NOTIFY_SOCKET"), log: log}
}

// send sends one state, such as "READY=1". A manager that cannot be told
// does not stop the service: it is logged, and the manager's own timeout
// decides.
func (n *notifier) send(state string) {
	if n.socket == "" {
		return
	}
	name := n.socket
	// A name beginning with @ is in the abstract namespace (unix(7)).
	if name[0] == '@' {
		name = "\x00" + name[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: name, Net: "unixgram"})
	if err == nil {
		_, err = conn.Write([]byte(state))
		conn.Close()
	}
	if err != nil {
		n.log.Warn("telling the service manager", "state", state, "err", fmt.Sprint(err))
	}
}

func (n *notifier) status(s string) { n.send("STATUS=" + s) }

// ready: every listener is bound, the database reached and migrated, and
// the jobs started.
func (n *notifier) ready() { n.send("READY=1\nSTATUS=serving") }

// stopping: the drain has begun.
func (n *notifier) stopping() { n.send("STOPPING=1\nSTATUS=draining") }
