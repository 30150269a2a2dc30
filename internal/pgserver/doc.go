//go:build linux

// Package pgserver starts PostgreSQL servers of a process's own for fault
// tests: a single throwaway server (initdb on a free loopback port in a
// temporary directory), a streaming standby of one, and a cluster of three
// nodes managed by Patroni with etcd as its store. Nothing here touches a
// server the machine runs; every process started is a child that dies with
// the caller (Pdeathsig) and is stopped by Close.
//
// PostgreSQL refuses to run as root, so as root the servers (and Patroni,
// which runs them) belong to the postgres user.
package pgserver
