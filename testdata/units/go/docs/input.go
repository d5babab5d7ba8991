package netx

// Dial connects to the address on the named network.
//
// Line 1 of the notes on networks, addresses and zones.
// Line 2 of the notes on networks, addresses and zones.
// Line 3 of the notes on networks, addresses and zones.
// Line 4 of the notes on networks, addresses and zones.
// Line 5 of the notes on networks, addresses and zones.
// Line 6 of the notes on networks, addresses and zones.
// Line 7 of the notes on networks, addresses and zones.
// Line 8 of the notes on networks, addresses and zones.
// Line 9 of the notes on networks, addresses and zones.
// Line 10 of the notes on networks, addresses and zones.
// Line 11 of the notes on networks, addresses and zones.
// Line 12 of the notes on networks, addresses and zones.
// Line 13 of the notes on networks, addresses and zones.
// Line 14 of the notes on networks, addresses and zones.
// Line 15 of the notes on networks, addresses and zones.
// Line 16 of the notes on networks, addresses and zones.
// Line 17 of the notes on networks, addresses and zones.
// Line 18 of the notes on networks, addresses and zones.
// Line 19 of the notes on networks, addresses and zones.
// Line 20 of the notes on networks, addresses and zones.
// Line 21 of the notes on networks, addresses and zones.
// Line 22 of the notes on networks, addresses and zones.
// Line 23 of the notes on networks, addresses and zones.
// Line 24 of the notes on networks, addresses and zones.
// Line 25 of the notes on networks, addresses and zones.
// Line 26 of the notes on networks, addresses and zones.
// Line 27 of the notes on networks, addresses and zones.
// Line 28 of the notes on networks, addresses and zones.
// Line 29 of the notes on networks, addresses and zones.
// Line 30 of the notes on networks, addresses and zones.
// Line 31 of the notes on networks, addresses and zones.
// Line 32 of the notes on networks, addresses and zones.
// Line 33 of the notes on networks, addresses and zones.
// Line 34 of the notes on networks, addresses and zones.
// Line 35 of the notes on networks, addresses and zones.
// Line 36 of the notes on networks, addresses and zones.
// Line 37 of the notes on networks, addresses and zones.
// Line 38 of the notes on networks, addresses and zones.
// Line 39 of the notes on networks, addresses and zones.
// Line 40 of the notes on networks, addresses and zones.
//
// For Unix networks, the address must be a file system path.
func Dial(network, address string) error {
	return nil
}

// Close closes the connection.
func Close() {}
