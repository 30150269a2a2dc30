package payd

import (
	"context"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
	"time"
)

// Store is the service's storage. Every state change runs inside Tx, whose
// function either commits all its writes (object, idempotency record, event,
// jobs) or none.
type Store interface {
	// Tx runs fn in a read-write transaction and commits when fn returns nil.
	// A ctx made by WithBulk runs apart from others (WithBulk).
	Tx(ctx context.Context, fn func(Tx) error) error
	// View runs fn with read access and no transaction guarantees beyond
	// each statement's.
	View(ctx context.Context, fn func(Tx) error) error
	// Snapshot runs fn read-only on one consistent state of the data.
	Snapshot(ctx context.Context, fn func(Tx) error) error
	// Ready reports whether storage answers and its schema is current.
	Ready(ctx context.Context) error
	Close() error
}

// Tx is the set of storage operations. Lookups that find nothing return
// ErrNoRows; a unique violation returns ErrConflict. Methods named ...ForUpdate
// lock the row until the transaction ends (row locks on PostgreSQL; SQLite
// has a single writer, which serialises the same way).
type Tx interface {
	// AfterCommit runs fn once the transaction has committed, and never
	// when it rolls back.
	AfterCommit(fn func())

	MerchantInsert(ctx context.Context, m *Merchant) error
	MerchantGet(ctx context.Context, id string) (*Merchant, error)
	MerchantList(ctx context.Context, p *MerchantListParams) (Page[*Merchant], error)
	MerchantUpdate(ctx context.Context, m *Merchant) error

	// HolidayPut makes day (YYYY-MM-DD) a holiday of region, again
	// without error; HolidayDelete returns ErrNoRows when it was none.
	// HolidayList returns a region's holidays in date order.
	HolidayPut(ctx context.Context, region Region, day string) error
	HolidayDelete(ctx context.Context, region Region, day string) error
	HolidayList(ctx context.Context, region Region) ([]string, error)

	// ProviderRouteGet returns the live route of a region, method and
	// currency, or ErrNoRows. ProviderRoutePut creates or replaces it;
	// ProviderRouteDelete returns ErrNoRows when there was none.
	// ProviderRouteList returns every route ordered by region, method and
	// currency.
	ProviderRouteGet(ctx context.Context, region Region, method string, currency money.Currency) (*ProviderRoute, error)
	ProviderRoutePut(ctx context.Context, r *ProviderRoute) error
	ProviderRouteDelete(ctx context.Context, region Region, method string, currency money.Currency) error
	ProviderRouteList(ctx context.Context) ([]*ProviderRoute, error)

	ShopInsert(ctx context.Context, s *Shop) error
	ShopGet(ctx context.Context, id string) (*Shop, error)
	ShopGetForUpdate(ctx context.Context, id string) (*Shop, error)
	ShopUpdate(ctx context.Context, s *Shop) error
	ShopList(ctx context.Context, p *ShopListParams) (Page[*Shop], error)
	ShopListByMerchant(ctx context.Context, merchantID string) ([]*Shop, error)
	ShopCount(ctx context.Context) (int, error)
	// ShopSandboxResetMark sets the mark of a sandbox reset under way on a
	// shop and returns it: at, or a microsecond past a mark already there
	// that is not earlier, so that each reset's mark is its own and the
	// last one set is the latest. It first waits for every transaction
	// that holds the shop's sandbox fence (IdempotencyLockGet of a test
	// key, ShopSandboxResetHeld) to end, and holds the fence against new
	// ones until it commits; it must be the transaction's first step.
	ShopSandboxResetMark(ctx context.Context, shopID string, at time.Time) (time.Time, error)
	// ShopSandboxResetHeld takes the shop's sandbox fence shared, as a
	// change of its test data does, and says whether the shop's mark is
	// still mark: whether the reset that set it still holds the shop. A
	// newer reset's marking waits for the transaction to end.
	ShopSandboxResetHeld(ctx context.Context, shopID string, mark time.Time) (bool, error)
	// ShopSandboxResetClear removes the shop's mark if it is still mark,
	// and says whether it was.
	ShopSandboxResetClear(ctx context.Context, shopID string, mark time.Time) (bool, error)
	// ShopSandboxResetMarked says whether a reset's mark is on the shop.
	ShopSandboxResetMarked(ctx context.Context, shopID string) (bool, error)
	// SandboxDelete deletes one batch of a sandbox reset: at most p.Limit
	// objects of p.Kind of the shop's test data, with their ledger
	// entries (LedgerEntriesDelete) and what else hangs on them. It
	// returns what it deleted and how many objects of p.Kind, which is
	// below p.Limit once none are left.
	SandboxDelete(ctx context.Context, p *SandboxDeleteParams) (SandboxResetCounts, int64, error)
	// LedgerEntriesDelete deletes the test contour's entries caused by the
	// objects refIDs of refType, with their postings, and takes their sums
	// off the running totals, removing the totals of accounts and buckets
	// left without postings. It is the one way entries leave the ledger:
	// only a sandbox reset deletes any, and never a live one. It returns
	// how many entries it deleted.
	LedgerEntriesDelete(ctx context.Context, refType string, refIDs []string) (int64, error)

	KeyInsert(ctx context.Context, k *APIKey) error
	KeyGet(ctx context.Context, id string) (*APIKey, error)
	KeyListByShop(ctx context.Context, shopID string) ([]*APIKey, error)
	// KeyExpireOthers gives every usable key of shop and mode other than
	// exceptID, and without an earlier expiry, the expiry at.
	KeyExpireOthers(ctx context.Context, shopID string, mode Mode, exceptID string, at time.Time) error
	KeyRevoke(ctx context.Context, id string, at time.Time) error
	// KeyExpire gives key id the expiry at when it is usable and has no
	// earlier expiry; ErrNoRows when there is no such key.
	KeyExpire(ctx context.Context, id string, at time.Time) error
	// KeyTouch records that key id authenticated a request at at, unless a
	// later use is already recorded.
	KeyTouch(ctx context.Context, id string, at time.Time) error

	// IdempotencyLockGet takes a lock on the key for the rest of the
	// transaction without waiting and reads the key's record. locked false
	// means another transaction holds the key (and rec is nil); rec nil
	// with locked true means there is no record. The read may miss a
	// record committed while the lock was being taken: IdempotencyPut
	// still refuses to overwrite it. It must be the transaction's first
	// step. For a test key it also holds the shop's sandbox fence until
	// the transaction ends, shared with every other change of the shop's
	// test data, and returns ErrSandboxResetting when the shop's reset
	// mark is set (as committed before the fence was held).
	IdempotencyLockGet(ctx context.Context, shopID string, mode Mode, key string) (rec *IdempotencyRecord, locked bool, err error)
	// IdempotencyClaim is the way of a store that can check a key in the
	// same round trip as the effect: as the transaction's first step, it
	// asks that the key be free — no record of it, live or expired, no
	// other transaction holding its lock, and for a test key no sandbox
	// reset under way (the fence is held as IdempotencyLockGet holds it).
	// The claim goes to the database with the transaction's first
	// statement, or with its commit; when it does not hold, that
	// statement or the commit fails with ErrClaimRefused, and so does
	// Store.Tx, keeping nothing. When it holds, the key's lock is held as
	// after IdempotencyLockGet found no record. Nothing outside the
	// store may happen before the transaction's first statement answered.
	// claimed false (a store that does not claim) asks for
	// IdempotencyLockGet instead, in the same transaction.
	IdempotencyClaim(ctx context.Context, shopID string, mode Mode, key string) (claimed bool, err error)
	IdempotencyGet(ctx context.Context, shopID string, mode Mode, key string) (*IdempotencyRecord, error)
	// IdempotencyPut stores r, replacing an expired record of the same key;
	// a live record of the key stays and ErrConflict is returned, with the
	// transaction still usable. After IdempotencyLockGet found no record
	// of the key in the same transaction, the store may instead send r
	// with the commit, as the transaction's last statement: then a record
	// committed meanwhile fails the whole transaction, and Store.Tx
	// returns ErrConflict.
	IdempotencyPut(ctx context.Context, r *IdempotencyRecord) error
	// IdempotencyDeleteExpired deletes at most limit records expired at
	// now, oldest expiry first (one range of an index), and returns how
	// many it deleted: the purge calls it until fewer come back.
	IdempotencyDeleteExpired(ctx context.Context, now time.Time, limit int) (int64, error)

	EventInsert(ctx context.Context, e *Event) error
	EventGet(ctx context.Context, shopID string, test bool, id string) (*Event, error)
	// EventGetAny reads an event of any shop by its id alone, for the
	// operator (ErrNoRows when there is none).
	EventGetAny(ctx context.Context, id string) (*Event, error)
	EventList(ctx context.Context, p *EventListParams) (Page[*Event], error)
	// EventDeleteBefore deletes at most limit events created before t,
	// oldest first (one range of an index), and returns how many.
	EventDeleteBefore(ctx context.Context, t time.Time, limit int) (int64, error)
	// EventInsert numbers a test event in its shop's sandbox feed;
	// EventResequence gives a test event of the shop the feed's next
	// number (ErrNoRows when the shop has no such test event). EventFeed
	// lists the feed after p.After in number order, at most p.Limit;
	// EventFeedLast is the shop's highest number, 0 for an empty feed.
	// Numbers only grow; on PostgreSQL they may commit out of order and
	// leave gaps (docs/sandbox.md, "payd listen").
	EventResequence(ctx context.Context, shopID, id string) error
	EventFeed(ctx context.Context, p *EventFeedParams) ([]EventFeedItem, error)
	EventFeedLast(ctx context.Context, shopID string) (int64, error)

	// PaymentInsert inserts p; a payment already holding its order id (or
	// id) is ErrConflict, with the transaction still usable.
	PaymentInsert(ctx context.Context, p *Payment) error
	// PaymentInsertAtCommit inserts p when nothing later in the
	// transaction reads or changes it: the store may send the row with
	// the commit (PostgreSQL does). An order id already held fails with
	// ErrOrderIDTaken, from this call or from Store.Tx, and then nothing
	// of the transaction is kept.
	PaymentInsertAtCommit(ctx context.Context, p *Payment) error
	// PaymentGet and PaymentGetForUpdate look a payment up by id alone; the
	// service checks it belongs to the caller's shop and mode.
	PaymentGet(ctx context.Context, id string) (*Payment, error)
	PaymentGetForUpdate(ctx context.Context, id string) (*Payment, error)
	PaymentGetByOrderID(ctx context.Context, shopID string, test bool, orderID string) (*Payment, error)
	// PaymentListExpired lists pending payments whose ExpiresAt is at or
	// before p.Now, earliest first, after p.After, at most p.Limit.
	PaymentListExpired(ctx context.Context, p *PaymentListExpiredParams) ([]PaymentDue, error)
	// PaymentGetByCheckoutToken finds the payment whose checkout token
	// hashes to tokenHash; paymentID is the payment the token names
	// (CheckoutTokenPayment), empty for a token that names none.
	PaymentGetByCheckoutToken(ctx context.Context, tokenHash []byte, paymentID string) (*Payment, error)
	PaymentGetByProviderID(ctx context.Context, provider, providerPaymentID string) (*Payment, error)
	PaymentUpdate(ctx context.Context, p *Payment) error
	// PaymentViewsStale lists, in id order after after, the ids of
	// payments whose stored rendering is of an older PaymentViewVersion
	// (or absent), at most limit.
	PaymentViewsStale(ctx context.Context, after string, limit int) ([]string, error)
	// PaymentViewList lists a shop's payments of one mode, newest first,
	// each as the contract renders it (Payment.View without
	// confirmation_url), kept by the store beside the document it renders.
	PaymentViewList(ctx context.Context, p *PaymentListParams) (Page[*PaymentView], error)
	// PaymentViewGet reads one payment as PaymentViewList renders it,
	// with its shop and mode (ErrNoRows when there is none).
	PaymentViewGet(ctx context.Context, id string) (*PaymentView, error)
	// PaymentTotals counts and sums a shop's payments of one mode created
	// in [from, to), by status and currency, ordered by both, leaving out
	// the pairs with none. from and to are UTC midnights: the store keeps
	// the totals by day, so that a day or a month costs the same however
	// many payments it had.
	PaymentTotals(ctx context.Context, shopID string, test bool, from, to time.Time) ([]PaymentTotal, error)
	// PaymentStats counts and sums the payments of a shop, mode and
	// currency created since, leaving canceled ones out: it reads them,
	// for a recent minute (the per-minute limit); longer periods are
	// PaymentTotals'.
	PaymentStats(ctx context.Context, shopID string, test bool, currency string, since time.Time) (count int, sum int64, err error)

	// NotificationRecord remembers a provider notification; ErrConflict
	// means it was already processed.
	NotificationRecord(ctx context.Context, provider, id string, at time.Time) error
	DiscrepancyInsert(ctx context.Context, d *Discrepancy) error
	DiscrepancyList(ctx context.Context, p *ListParams) (Page[*Discrepancy], error)

	// SecretGetOrCreate returns the service secret name, storing fresh
	// first when there is none, so every instance shares one value.
	SecretGetOrCreate(ctx context.Context, name string, fresh []byte) ([]byte, error)
	// SecretsReseal seals again, under the store's sealing key, the
	// secrets of at most limit rows after cursor ("" to start) that are
	// sealed under another key of its keyring, and returns the cursor to
	// go on from ("" once every row was walked) and how many rows it
	// changed. A value under a key the store does not know fails it.
	SecretsReseal(ctx context.Context, cursor string, limit int) (next string, resealed int, err error)

	SandboxAttemptInsert(ctx context.Context, a *SandboxAttempt) error
	SandboxAttemptGet(ctx context.Context, id string) (*SandboxAttempt, error)
	SandboxAttemptGetByReference(ctx context.Context, provider, reference string) (*SandboxAttempt, error)
	SandboxAttemptGetForUpdate(ctx context.Context, id string) (*SandboxAttempt, error)
	SandboxAttemptUpdate(ctx context.Context, a *SandboxAttempt) error

	RefundInsert(ctx context.Context, r *Refund) error
	RefundGet(ctx context.Context, id string) (*Refund, error)
	RefundGetForUpdate(ctx context.Context, id string) (*Refund, error)
	RefundUpdate(ctx context.Context, r *Refund) error
	RefundList(ctx context.Context, p *RefundListParams) (Page[*Refund], error)

	// MerchantGetForUpdate locks a merchant: money checks across its
	// payments (the available balance) serialise on it.
	MerchantGetForUpdate(ctx context.Context, id string) (*Merchant, error)
	// MerchantLock takes the same lock without reading the merchant. On
	// PostgreSQL it goes out with the transaction's next statement, which
	// runs once the lock is held and sees what committed before: lock and
	// read in one round trip.
	MerchantLock(ctx context.Context, id string) error

	// FreezeGet returns the freeze of a merchant's contour (never frozen
	// when none was stored); FreezePut stores it.
	FreezeGet(ctx context.Context, merchantID string, test bool) (*Freeze, error)
	FreezePut(ctx context.Context, f *Freeze) error
	// FreezeLock takes the lock of a contour's freeze for the
	// transaction: decisions on the freeze serialise on it, each reading
	// the balance after taking it. On PostgreSQL it goes out with the
	// transaction's next statement.
	FreezeLock(ctx context.Context, merchantID string, test bool) error

	// SettlementInsert inserts a register; one that holds the merchant,
	// contour, currency and first day of a register already stored (or
	// its id) is ErrConflict.
	SettlementInsert(ctx context.Context, st *Settlement) error
	SettlementGet(ctx context.Context, id string) (*Settlement, error)
	SettlementGetForUpdate(ctx context.Context, id string) (*Settlement, error)
	SettlementUpdate(ctx context.Context, st *Settlement) error
	SettlementList(ctx context.Context, p *SettlementListParams) (Page[*Settlement], error)
	// SettlementQueue lists registers of every merchant (or of
	// p.MerchantID), newest first: the operator's queue by state.
	SettlementQueue(ctx context.Context, p *SettlementQueueParams) (Page[*Settlement], error)
	// SettlementListUnpaid returns a merchant's registers of one contour
	// and currency that are formed and not yet paid (draft, approved,
	// sent), in no particular order.
	SettlementListUnpaid(ctx context.Context, merchantID string, test bool, c money.Currency) ([]*Settlement, error)
	// SettlementDayMark records, by the time the transaction commits, a
	// day that moved a merchant's money; a day already recorded stays as
	// it is. On PostgreSQL the days are inserted as the transaction's last
	// statements, in key order: the insert waits for another transaction
	// recording the same day, and a transaction that has inserted its
	// days waits for nothing more, so two never wait for each other (a
	// refund takes its merchant's lock after its posting; a capture takes
	// it before).
	// SettlementDayDelete removes a day (no error when there was none).
	// SettlementDaysBefore lists the recorded days before day (exclusive,
	// YYYY-MM-DD), in order of day, merchant, contour and currency, after
	// the key after (nil: from the first), at most limit.
	SettlementDayMark(ctx context.Context, d SettlementDay) error
	SettlementDayDelete(ctx context.Context, d SettlementDay) error
	SettlementDaysBefore(ctx context.Context, day string, after *SettlementDay, limit int) ([]SettlementDay, error)
	// LedgerEntriesOf returns the entries, with their postings, that move a
	// merchant's money in a contour and currency in [from, to).
	LedgerEntriesOf(ctx context.Context, merchantID string, test bool, c money.Currency, from, to time.Time) ([]*ledger.Entry, error)

	// LedgerPost writes an entry and its postings, and adds them to the
	// running totals of the accounts and buckets they move, in the same
	// transaction; an entry that fails ledger.Entry.Validate is refused
	// with its error, and a taken entry id is ErrConflict. It never waits
	// for another transaction that posts to the same accounts: what
	// serialises money operations is the service's locks, not the totals
	// (docs/money.md, "Running totals").
	LedgerPost(ctx context.Context, e *ledger.Entry) error
	// LedgerAccountBalance returns the balance of one account, exactly its
	// key: a bucket's sub-accounts are accounts of their own. An account
	// without postings reads 0. It reads the account's running total, so
	// its cost does not grow with the account's postings.
	LedgerAccountBalance(ctx context.Context, a ledger.Account) (int64, error)
	// LedgerBuckets returns an owner's contour per currency and bucket,
	// with the sub-accounts; every currency and bucket that ever had a
	// posting is there, at 0 when its money all left. LedgerBucketByCurrency
	// is the same for one bucket. Both read the buckets' running totals.
	LedgerBuckets(ctx context.Context, owner string, test bool) (map[money.Currency]map[ledger.Bucket]int64, error)
	LedgerBucketByCurrency(ctx context.Context, owner string, test bool, b ledger.Bucket) (map[money.Currency]int64, error)
	// LedgerTotalMismatches is the ledger check's comparison of every
	// running total with the sum of the postings it stands for: the
	// totals that differ, that have no postings, and the accounts and
	// buckets with postings but no total.
	LedgerTotalMismatches(ctx context.Context) ([]LedgerTotalMismatch, error)
	// LedgerTotalsFold folds the spare slots of the running totals, those
	// no transaction holds, back into one per total, and returns how many
	// it removed (a periodic job; docs/money.md, "Slots"). It looks at the
	// totals postings opened a slot of since the last fold, at most limit
	// of them; more reports that others wait for the next call.
	LedgerTotalsFold(ctx context.Context, limit int) (folded int, more bool, err error)
	// LedgerUnbalanced, LedgerNegativeAccounts and RefundTotals are the
	// ledger check's reads: the ids of entries whose postings do not sum
	// to zero (and a note of entries without postings); the keys of the
	// merchants' accounts other than available below zero; every
	// refund's sum per payment and status.
	LedgerUnbalanced(ctx context.Context) ([]string, error)
	LedgerNegativeAccounts(ctx context.Context) ([]string, error)
	RefundTotals(ctx context.Context) (map[string]map[string]int64, error)

	// LedgerSubBalances returns the balance of every sub-account of one
	// bucket of a merchant's contour and currency (the per-payment parts
	// of the reserve), leaving out those at zero.
	LedgerSubBalances(ctx context.Context, owner string, test bool, c money.Currency, b ledger.Bucket) (map[string]int64, error)
	// LedgerContours lists every contour (owner, mode, currency) that has
	// ever had a posting in bucket b, for the checks that must look at
	// all of them, not only at those their objects name.
	LedgerContours(ctx context.Context, b ledger.Bucket) ([]LedgerContour, error)

	// DisputeInsert inserts d; a dispute already holding d's provider
	// dispute id is ErrConflict, with the transaction still usable.
	DisputeInsert(ctx context.Context, d *Dispute) error
	// DisputeGet and DisputeGetForUpdate look a dispute up by id alone;
	// the service checks it belongs to the caller's shop and mode.
	DisputeGet(ctx context.Context, id string) (*Dispute, error)
	DisputeGetForUpdate(ctx context.Context, id string) (*Dispute, error)
	// DisputeGetByProviderID finds the dispute a provider names.
	DisputeGetByProviderID(ctx context.Context, provider, providerDisputeID string) (*Dispute, error)
	DisputeUpdate(ctx context.Context, d *Dispute) error
	DisputeList(ctx context.Context, p *DisputeListParams) (Page[*Dispute], error)
	// DisputeQueue lists disputes of every merchant (or of p.MerchantID)
	// in any of p.Statuses, by (evidence deadline, id) ascending: the
	// operator's work queue. Its cursor holds the deadline
	// (DisputeQueueParams).
	DisputeQueue(ctx context.Context, p *DisputeQueueParams) (Page[*Dispute], error)
	// DisputeListExpired lists opened and evidence_required disputes whose
	// evidence deadline is at or before p.Now, earliest first, after
	// p.After, at most p.Limit.
	DisputeListExpired(ctx context.Context, p *DisputeListExpiredParams) ([]DisputeDue, error)
	// DisputeAmounts lists every dispute's sum and status, for the
	// invariant check.
	DisputeAmounts(ctx context.Context) ([]DisputeAmount, error)
	// ChargebackStats counts a merchant's chargebacks opened in a contour
	// since a moment, and its payments created since then that succeeded.
	ChargebackStats(ctx context.Context, merchantID string, test bool, since time.Time) (chargebacks, payments int, err error)

	// EvidenceFileInsert, EvidenceFileGet(ForUpdate) and EvidenceFileUpdate
	// keep the evidence uploads' records.
	EvidenceFileInsert(ctx context.Context, f *EvidenceFile) error
	EvidenceFileGet(ctx context.Context, id string) (*EvidenceFile, error)
	EvidenceFileGetForUpdate(ctx context.Context, id string) (*EvidenceFile, error)
	EvidenceFileUpdate(ctx context.Context, f *EvidenceFile) error
	// EvidenceChunkPut stores chunk seq of a file's bytes; EvidenceChunkGet
	// reads one back (ErrNoRows past the last), so a file streams through
	// one chunk at a time. EvidenceChunksDelete drops all of a file's.
	EvidenceChunkPut(ctx context.Context, fileID string, seq int, data []byte) error
	EvidenceChunkGet(ctx context.Context, fileID string, seq int) ([]byte, error)
	EvidenceChunksDelete(ctx context.Context, fileID string) error
	// EvidenceWaiting sums the files that wait to be attached (not
	// attached, upload link not expired at Now) of one dispute, or of one
	// shop's contour when DisputeID is empty.
	EvidenceWaiting(ctx context.Context, p *EvidenceWaitingParams) (EvidenceWaitingSum, error)
	// EvidenceListExpired lists the files not marked attached whose upload
	// link expired at or before Now, in (expires, id) order after After,
	// at most Limit. Files written before the column existed are listed
	// too (their expiry reads as the epoch).
	EvidenceListExpired(ctx context.Context, p *EvidenceListExpiredParams) ([]EvidenceDue, error)
	// EvidenceFileDelete removes a file's record and its chunks.
	EvidenceFileDelete(ctx context.Context, id string) error

	// PayoutInsert, PayoutGet(ForUpdate) and PayoutUpdate keep payouts;
	// lookups are by id alone and the service checks shop and mode.
	PayoutInsert(ctx context.Context, po *Payout) error
	PayoutGet(ctx context.Context, id string) (*Payout, error)
	PayoutGetForUpdate(ctx context.Context, id string) (*Payout, error)
	PayoutUpdate(ctx context.Context, po *Payout) error
	PayoutList(ctx context.Context, p *PayoutListParams) (Page[*Payout], error)
	// PayoutAmounts lists every payout's sum, fee and status, for the
	// invariant check.
	PayoutAmounts(ctx context.Context) ([]PayoutAmount, error)
	// PaymentLinkInsert inserts a link (ErrConflict for a taken id).
	// PaymentLinkGet and PaymentLinkGetForUpdate look a link up by id
	// alone, with its Payments filled; the service checks it belongs to
	// the caller's shop and mode. PaymentLinkUpdate writes the link's
	// document and status, never its payments.
	PaymentLinkInsert(ctx context.Context, l *PaymentLink) error
	PaymentLinkGet(ctx context.Context, id string) (*PaymentLink, error)
	PaymentLinkGetForUpdate(ctx context.Context, id string) (*PaymentLink, error)
	PaymentLinkUpdate(ctx context.Context, l *PaymentLink) error
	// PaymentLinkList lists a shop's links of one mode, newest first,
	// each with its Payments filled.
	PaymentLinkList(ctx context.Context, p *PaymentLinkListParams) (Page[*PaymentLink], error)
	// PaymentLinkListExpired lists active links whose ExpiresAt is at or
	// before p.Now, earliest first, after p.After, at most p.Limit.
	PaymentLinkListExpired(ctx context.Context, p *PaymentLinkListExpiredParams) ([]PaymentLinkDue, error)
	// PaymentLinkAddPayment records payment number seq of a link; a seq
	// or a payment already recorded is ErrConflict.
	PaymentLinkAddPayment(ctx context.Context, linkID string, seq int, paymentID string, at time.Time) error

	// WebhookDeliveryInsert queues deliveries, each due at its DueAt.
	WebhookDeliveryInsert(ctx context.Context, list ...*WebhookDelivery) error
	// WebhookDeliveryClaim takes the due deliveries for sending and moves
	// them out of reach of other claims until p.LeaseUntil.
	WebhookDeliveryClaim(ctx context.Context, p *WebhookDeliveryClaimParams) ([]*DeliveryWork, error)
	// WebhookDeliverySave writes deliveries after their attempts; only
	// those still pending are changed, and their ids are returned.
	WebhookDeliverySave(ctx context.Context, list []*WebhookDelivery) ([]string, error)
	// WebhookDeliveryReplace writes deliveries a resend replaced (state
	// resent); only those still failed or skipped are changed, and their
	// ids are returned.
	WebhookDeliveryReplace(ctx context.Context, list []*WebhookDelivery) ([]string, error)
	WebhookDeliveryListByEvent(ctx context.Context, eventID string) ([]*WebhookDelivery, error)
	DeliveryAttemptInsert(ctx context.Context, list ...*DeliveryAttempt) error
	DeliveryAttemptListByEvent(ctx context.Context, eventID string) ([]*DeliveryAttempt, error)
	// EventDeliveryUpdate stores an event's delivery summary as it is.
	EventDeliveryUpdate(ctx context.Context, eventID string, d EventDelivery) error
	// EventDeliveryCount moves the delivery counters of events, and with
	// them their summaries, by the given changes; several changes to one
	// event are added up.
	EventDeliveryCount(ctx context.Context, changes []EventDeliveryChange) error

	WebhookEndpointInsert(ctx context.Context, e *WebhookEndpoint) error
	WebhookEndpointGet(ctx context.Context, shopID string, test bool, id string) (*WebhookEndpoint, error)
	WebhookEndpointGetForUpdate(ctx context.Context, shopID string, test bool, id string) (*WebhookEndpoint, error)
	WebhookEndpointList(ctx context.Context, shopID string, test bool) ([]*WebhookEndpoint, error)
	WebhookEndpointUpdate(ctx context.Context, e *WebhookEndpoint) error
	WebhookEndpointDelete(ctx context.Context, shopID string, test bool, id string, at time.Time) error

	// UserInsert inserts a dashboard user without credentials; a taken
	// email (or id) is ErrConflict, with the transaction still usable.
	UserInsert(ctx context.Context, u *User) error
	// UserGet, UserGetForUpdate, UserGetByEmail (the normalised email)
	// and UserGetBySetupToken (the SHA-256 of a setup token, expired or
	// not) read a user, ErrNoRows when there is none.
	UserGet(ctx context.Context, id string) (*User, error)
	UserGetForUpdate(ctx context.Context, id string) (*User, error)
	UserGetByEmail(ctx context.Context, email string) (*User, error)
	UserGetBySetupToken(ctx context.Context, hash []byte) (*User, error)
	// UserUpdate writes a user's role and disabling, never its
	// credentials.
	UserUpdate(ctx context.Context, u *User) error
	// UserListByMerchant lists a merchant's users, oldest first.
	UserListByMerchant(ctx context.Context, merchantID string) ([]*User, error)
	// UserCountAdmins counts a merchant's admins that are not disabled.
	UserCountAdmins(ctx context.Context, merchantID string) (int, error)
	// UserCredentialsGet reads a user's secrets; UserCredentialsUpdate
	// writes all of them (ErrNoRows for an unknown user). HasPassword and
	// TOTPEnabled of User follow from them.
	UserCredentialsGet(ctx context.Context, userID string) (*UserCredentials, error)
	UserCredentialsUpdate(ctx context.Context, c *UserCredentials) error
	// UserSetupTokensExpire forgets the setup tokens, of dashboard users
	// and of staff, expired at now.
	UserSetupTokensExpire(ctx context.Context, now time.Time) (int64, error)

	// SessionInsert stores a session (of Session.Kind) under the SHA-256
	// of its token; SessionGetByToken finds a session of kind by that
	// hash (ErrNoRows when none). The kinds are kept apart: a token of
	// one kind is no session of the other.
	SessionInsert(ctx context.Context, s *Session, tokenHash []byte) error
	SessionGetByToken(ctx context.Context, kind AccountKind, tokenHash []byte) (*Session, error)
	// SessionTouch sets a session's LastSeenAt (ErrNoRows when it has
	// ended); SessionDelete ends one (no error when it had ended);
	// SessionDeleteByUser ends all of a user's (or staff member's).
	SessionTouch(ctx context.Context, kind AccountKind, id string, at time.Time) error
	SessionDelete(ctx context.Context, kind AccountKind, id string) error
	SessionDeleteByUser(ctx context.Context, kind AccountKind, userID string) (int64, error)
	// SessionDeleteOldest ends the user's sessions but the one named
	// KeepID and the Keep-1 others most recently seen (ties: the later
	// sign-in, then the greater id, is kept) and returns how many it
	// ended.
	SessionDeleteOldest(ctx context.Context, p *SessionDeleteOldestParams) (int64, error)
	// SessionDeleteExpired deletes the sessions of both kinds last seen
	// at or before idleBefore or signed in at or before createdBefore.
	SessionDeleteExpired(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error)
	// SessionNoteFailures sets a session's FailedSignIns; SessionCodeFailed
	// adds one to its CodeFailures and returns the new count (ErrNoRows
	// when it has ended).
	SessionNoteFailures(ctx context.Context, kind AccountKind, id string, n int) error
	SessionCodeFailed(ctx context.Context, kind AccountKind, id string) (int, error)

	// SignInGuardLock returns the guard of an account name, a fresh one
	// when none is stored, locked until the transaction ends (SQLite's
	// one writer locks it as well); SignInGuardPut stores it.
	// SignInGuardDeleteBefore deletes at most limit guards last updated
	// before t.
	SignInGuardLock(ctx context.Context, key string) (*SignInGuard, error)
	SignInGuardPut(ctx context.Context, g *SignInGuard) error
	SignInGuardDeleteBefore(ctx context.Context, t time.Time, limit int) (int64, error)

	// AuditInsert appends an audit entry; there is no update or delete.
	// AuditList pages a merchant's entries, newest first.
	AuditInsert(ctx context.Context, e *AuditEntry) error
	AuditList(ctx context.Context, p *AuditListParams) (Page[*AuditEntry], error)

	// StaffInsert inserts a staff member without credentials; a taken
	// email (or id) is ErrConflict, with the transaction still usable.
	StaffInsert(ctx context.Context, st *Staff) error
	// StaffGet, StaffGetForUpdate, StaffGetByEmail (normalised) and
	// StaffGetBySetupToken (the SHA-256 of a setup token) read a staff
	// member, ErrNoRows when there is none.
	StaffGet(ctx context.Context, id string) (*Staff, error)
	StaffGetForUpdate(ctx context.Context, id string) (*Staff, error)
	StaffGetByEmail(ctx context.Context, email string) (*Staff, error)
	StaffGetBySetupToken(ctx context.Context, hash []byte) (*Staff, error)
	// StaffUpdate writes a staff member's role and disabling, never its
	// credentials.
	StaffUpdate(ctx context.Context, st *Staff) error
	// StaffList lists every staff member, oldest first.
	StaffList(ctx context.Context) ([]*Staff, error)
	// StaffLockAdmins locks the rows of the staff admins that are not
	// disabled, in id order, and counts them.
	StaffLockAdmins(ctx context.Context) (int, error)
	// StaffCredentialsGet reads a staff member's secrets (UserID is the
	// staff id); StaffCredentialsUpdate writes all of them (ErrNoRows for
	// an unknown one).
	StaffCredentialsGet(ctx context.Context, staffID string) (*UserCredentials, error)
	StaffCredentialsUpdate(ctx context.Context, c *UserCredentials) error

	// StaffTokenInsert stores a staff API token under the SHA-256 of its
	// secret; StaffTokenGetByHash finds it by that hash and StaffTokenGet
	// by id (ErrNoRows when none). StaffTokenListByStaff lists a person's
	// tokens, oldest first. StaffTokenRevoke sets RevokedAt (ErrNoRows
	// when unknown); StaffTokenTouch sets LastUsedAt.
	StaffTokenInsert(ctx context.Context, t *StaffToken, hash []byte) error
	StaffTokenGetByHash(ctx context.Context, hash []byte) (*StaffToken, error)
	StaffTokenGet(ctx context.Context, id string) (*StaffToken, error)
	StaffTokenListByStaff(ctx context.Context, staffID string) ([]*StaffToken, error)
	StaffTokenRevoke(ctx context.Context, id string, at time.Time) error
	StaffTokenTouch(ctx context.Context, id string, at time.Time) error

	// OperatorAuditInsert appends an entry of the operator audit log;
	// there is no update or delete. OperatorAuditList pages it, newest
	// first, by the params' filters.
	OperatorAuditInsert(ctx context.Context, e *OperatorAuditEntry) error
	OperatorAuditList(ctx context.Context, p *OperatorAuditListParams) (Page[*OperatorAuditEntry], error)

	// ProposalInsert stores a four-eyes proposal; ProposalGetForUpdate
	// reads and locks one (ErrNoRows when none); ProposalDecide sets its
	// state, decider and time (ErrNoRows when unknown); ProposalList
	// lists those of a state ("" every one), newest first, at most limit.
	ProposalInsert(ctx context.Context, p *Proposal) error
	ProposalGetForUpdate(ctx context.Context, id string) (*Proposal, error)
	ProposalDecide(ctx context.Context, p *Proposal) error
	ProposalList(ctx context.Context, state ProposalState, limit int) ([]*Proposal, error)
}

// JobArgs is a unit of background work; Kind names its worker.
type JobArgs interface {
	Kind() string
}

// Jobs enqueues background work inside a store transaction, so a job exists
// exactly when the change that needs it committed.
type Jobs interface {
	// Enqueue schedules args to run at runAt (now when zero) as part of tx.
	Enqueue(ctx context.Context, tx Tx, args JobArgs, runAt time.Time) error
}
