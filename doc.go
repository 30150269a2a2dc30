// Package payd is the domain of the merchant payments service: shops and
// their keys, payments, refunds, events and the rules that move them between
// states. It holds the Service that every adapter calls and the Store and Tx
// interfaces the storage adapters implement; it imports no adapter.
//
// The contract these types serve is the Merchant Payments API v1; field and
// error names follow it exactly so that the JSON the adapters write is the
// contract's JSON.
package payd
