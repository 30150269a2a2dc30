package main

// The time zone database is compiled in (about 450 kB): the container
// image is built FROM scratch and has no /usr/share/zoneinfo, and a time
// shown in a shop's zone needs time.LoadLocation to find that zone on any
// host, whatever it has installed.
import _ "time/tzdata"
